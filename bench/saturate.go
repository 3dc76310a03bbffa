package bench

// raises is how many times Saturate doubles the connections of a run whose
// server was not saturated while the client's core was not either.
const raises = 2

// A Ceiling is a ceiling run: its result, the connections it ended with
// and whether the server was saturated (a ceiling) or never was (none).
type Ceiling struct {
	Result
	Connections int
	Saturated   bool
}

// Saturate measures s under l and, while the server is under
// SaturatedCeiling busy and the client's core is not saturated, measures
// again with twice the connections, raises times at most. The last run
// is returned, saying whether the server was saturated: a run that never
// was is no ceiling, since an unsaturated server pays for wake-ups a
// saturated one does not.
func Saturate(s *Server, c Client, l Load) (Ceiling, error) {
	for try := 0; ; try++ {
		r, err := Measure(s, c, l)
		if err != nil {
			return Ceiling{}, err
		}
		sat := r.Busy() >= SaturatedCeiling
		if sat || r.ClientBusy() >= Saturated || try == raises {
			return Ceiling{Result: r, Connections: l.Connections, Saturated: sat}, nil
		}
		l.Connections *= 2
	}
}
