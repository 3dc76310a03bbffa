package targets

// A JSONEncoder is what a server's /json handler calls and the encoder
// behind that call: the stack's own idiom (servers/NAME says why).
type JSONEncoder struct {
	// Call appears in the server's code; a test holds it to that.
	Call string
	// Encoder is the library that serializes, as the report names it.
	Encoder string
	// Newline says the answer ends with json.Encoder's newline: 28 bytes.
	Newline bool
	// In is the package the call is in, when not the server's own: gnet
	// and uring share theirs.
	In string
}

// Encoders are the servers' JSON encoders, by server name.
var Encoders = map[string]JSONEncoder{
	"nethttp":  {"json.NewEncoder(w).Encode", "encoding/json", true, ""},
	"fasthttp": {"json.Marshal", "encoding/json", false, ""},
	"fiber":    {"c.JSON", "encoding/json (fiber's default JSONEncoder)", false, ""},
	"gin":      {"c.JSON", "encoding/json (gin's default build)", false, ""},
	"gnet":     {"json.Marshal", "encoding/json", false, "servers/internal/jsonreply"},
	"fcgi":     {"json.NewEncoder(&b).Encode", "encoding/json", true, ""},
	"echo":     {"c.JSON", "encoding/json's Encoder (echo's default serializer)", true, ""},
	"chi":      {"json.NewEncoder(w).Encode", "encoding/json", true, ""},
	"hertz":    {"c.JSON", "sonic (hertz's default on amd64)", false, ""},
	"uring":    {"json.Marshal", "encoding/json", false, "servers/internal/jsonreply"},
	"nbio":     {"json.NewEncoder(&b).Encode", "encoding/json", true, ""},
}
