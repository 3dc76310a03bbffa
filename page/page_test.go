package page

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestHTML(t *testing.T) {
	if len(HTML) != Size {
		t.Fatalf("len(HTML) = %d, want %d", len(HTML), Size)
	}
	if !utf8.Valid(HTML) {
		t.Fatal("HTML is not valid UTF-8, but ContentType says charset=utf-8")
	}
	if !bytes.HasPrefix(HTML, []byte("<!DOCTYPE html>\n")) || !bytes.HasSuffix(HTML, []byte("</html>\n")) {
		t.Fatalf("HTML is not a whole document: %q", HTML)
	}
	if bytes.Contains(HTML, []byte("\r")) {
		t.Fatal("HTML contains CR: a checkout converted its line endings")
	}
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(Message{Greeting})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, JSON) || len(JSON) != JSONSize {
		t.Errorf("encoding/json gives %q (%d bytes), JSON is %q (JSONSize %d)", b, len(b), JSON, JSONSize)
	}
}
