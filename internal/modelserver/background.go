package modelserver

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// Background keeps n requests of background load (BackgroundHeader) in the endpoint's
// queue until it is stopped: n clients, each sending its next request as soon as its last
// is answered, as a model server's other users keep it busy whatever a gateway sends it.
// With a queue of fewer than n slots, the endpoint is saturated: its slots stay full and
// n minus its slots wait.
type Background struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// StartBackground starts n background clients of e.
func (e *Endpoint) StartBackground(n int) *Background {
	ctx, cancel := context.WithCancel(context.Background())
	b := &Background{cancel: cancel}
	client := &http.Client{}
	for range n {
		b.done.Go(func() {
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL()+ProbePath, nil)
				if err != nil {
					return
				}
				req.Header.Set(BackgroundHeader, "1")
				resp, err := client.Do(req)
				if err != nil {
					// Refused or cancelled: a client does not spin on a dead server.
					if ctx.Err() == nil {
						<-ctx.Done()
					}
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
	return b
}

// Stop ends the background load: the requests waiting leave the queue, and Stop returns
// once every client has.
func (b *Background) Stop() {
	b.cancel()
	b.done.Wait()
}
