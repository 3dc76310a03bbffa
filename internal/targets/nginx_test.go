package targets

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"hellobench/page"
)

// TestNginxAnswers starts the reference nginx and checks its two fixed
// answers: the page and the JSON object, each with its type and length.
func TestNginxAnswers(t *testing.T) {
	nginx, _ := Lookup("nginx")
	in, err := nginx.Start(Env{})
	if errors.Is(err, ErrMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer in.Stop()
	for _, tc := range []struct {
		path, ctype string
		body        []byte
	}{
		{page.Path, page.ContentType, page.HTML},
		{page.JSONPath, page.JSONType, page.JSON},
	} {
		r, err := http.Get("http://" + in.Addr + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil || r.StatusCode != 200 || !bytes.Equal(b, tc.body) || r.Header.Get("Content-Type") != tc.ctype || r.ContentLength != int64(len(tc.body)) {
			t.Errorf("GET %s: %d %q, Content-Length %d, %q (%v); want 200 %q, %d, %q", tc.path, r.StatusCode, r.Header.Get("Content-Type"), r.ContentLength, b, err, tc.ctype, len(tc.body), tc.body)
		}
	}
}
