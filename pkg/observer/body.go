package observer

import (
	"errors"
	"io"
	"math"
)

// readBody reads at most max bytes of body into sink (io.Discard unless the caller keeps
// the body). It asks for one byte more than
// max so that a body of exactly max bytes is told apart from a longer one without
// reading further.
//
// n never exceeds max. truncated means reading stopped at max without seeing the end.
// err is set only when reading failed within the first max bytes; a failure on the byte
// past the cap is beyond what the caller asked to read, so it counts as truncation.
func readBody(body io.Reader, max int64, sink io.Writer) (n int64, truncated bool, err error) {
	limit := max
	if max < math.MaxInt64 {
		limit = max + 1
	}
	n, err = io.CopyN(sink, body, limit)
	switch {
	case n > max:
		return max, true, nil
	case errors.Is(err, io.EOF):
		return n, false, nil
	case err != nil && n == max:
		return n, true, nil
	default:
		return n, false, err
	}
}
