package observer

import (
	"context"
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

// boundBody ends every read of body when ctx ends, whatever the transport does with
// ctx: the body is closed then, which unblocks a read waiting on the connection. net/http
// already stops the reads of an ordinary response at the request's deadline; this holds
// for any body, so no answer can keep a slot past its timeout. A read that fails once
// ctx has ended reports ctx's error, so the message says the deadline passed rather than
// that the body was closed.
func boundBody(ctx context.Context, body io.ReadCloser) io.Reader {
	context.AfterFunc(ctx, func() { body.Close() })
	return &ctxReader{ctx: ctx, r: body}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		if cerr := c.ctx.Err(); cerr != nil {
			err = cerr
		}
	}
	return n, err
}
