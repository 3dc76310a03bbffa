package page

// The second endpoint: a small object built and serialized on every
// request, as TechEmpower's JSON test asks. The servers must not send
// JSON's bytes cached: each builds a Message and encodes it with its
// stack's own encoder. JSON is here for the tests and for nginx, which
// answers a fixed string and serializes nothing.
const (
	// JSONPath is the path of the JSON answer.
	JSONPath = "/json"
	// Greeting is the Message's text.
	Greeting = "Hello, World!"
	// JSONType is the media type of the JSON answer; a stack may add
	// "; charset=utf-8", as gin and hertz do.
	JSONType = "application/json"
	// JSONSize is len(JSON); an encoder that ends its output with a
	// newline, as json.Encoder does, sends JSONSize+1 bytes.
	JSONSize = 27
)

// JSON is what encoding a Message{Greeting} gives: {"message":"Hello, World!"}.
var JSON = []byte(`{"message":"` + Greeting + `"}`)

// A Message is the object every server builds for each request to JSONPath.
// A server may declare its own type of the same shape, as its stack's
// examples do; this one is for the servers that have no reason to.
type Message struct {
	Message string `json:"message"`
}
