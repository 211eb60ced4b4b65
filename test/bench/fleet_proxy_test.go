package bench

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proxyMode is how a faultProxy treats connections.
type proxyMode int

const (
	// proxyPass forwards every byte both ways.
	proxyPass proxyMode = iota
	// proxyHang is an API server that stops answering: open connections go silent (the
	// proxy stops forwarding and keeps the client's end open), new ones are accepted and
	// never answered, not even with a TLS handshake.
	proxyHang
	// proxyDrop is an API server that is gone: open connections are reset and new ones
	// are reset as soon as they are accepted.
	proxyDrop
)

// faultProxy is a loopback TCP proxy in front of one member's API server: the member's
// kubeconfig names it instead of the API server, so its faults reach that member's
// connection alone, while the other members on the same API server connect directly.
// TLS runs end to end through it (the API server's certificate names 127.0.0.1, the
// proxy's address too).
type faultProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	mode  proxyMode
	conns map[*proxyConn]struct{}
	// drops counts the switches to proxyDrop.
	drops atomic.Int64
}

// proxyConn is one client connection and, while passing, its connection to the target.
type proxyConn struct {
	client, upstream net.Conn
	// held is set when the connection went silent (proxyHang): its upstream is closed and
	// the client's end stays open until the hang ends or the client gives up.
	held bool
}

func startFaultProxy(t *testing.T, target string) *faultProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, conns: map[*proxyConn]struct{}{}}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) addr() string { return p.ln.Addr().String() }

func (p *faultProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		mode := p.mode
		p.mu.Unlock()
		switch mode {
		case proxyDrop:
			reset(c)
		case proxyHang:
			if pc := (&proxyConn{client: c, held: true}); p.track(pc) {
				go p.drain(pc)
			}
		default:
			go p.pass(c)
		}
	}
}

func (p *faultProxy) pass(c net.Conn) {
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		reset(c)
		return
	}
	pc := &proxyConn{client: c, upstream: up}
	if !p.track(pc) {
		return
	}
	go func() {
		_, _ = io.Copy(pc.client, pc.upstream)
		if !p.isHeld(pc) {
			p.finish(pc)
		}
	}()
	go func() {
		_, _ = io.Copy(pc.upstream, pc.client)
		if p.isHeld(pc) {
			p.drain(pc)
			return
		}
		p.finish(pc)
	}()
}

// track registers pc unless the mode changed since it was accepted (then pc is closed).
func (p *faultProxy) track(pc *proxyConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if (pc.upstream != nil && p.mode != proxyPass) || (pc.upstream == nil && p.mode != proxyHang) {
		closeConns(pc)
		return false
	}
	p.conns[pc] = struct{}{}
	return true
}

func (p *faultProxy) isHeld(pc *proxyConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pc.held
}

// drain reads and discards what a held client sends, answering nothing, until the client
// or the end of the hang closes it.
func (p *faultProxy) drain(pc *proxyConn) {
	_, _ = io.Copy(io.Discard, pc.client)
	p.finish(pc)
}

func (p *faultProxy) finish(pc *proxyConn) {
	p.mu.Lock()
	delete(p.conns, pc)
	p.mu.Unlock()
	closeConns(pc)
}

// setMode switches the proxy. To proxyHang: every open connection goes silent. Out of
// proxyHang: the silent connections are reset, so their clients dial again. To
// proxyDrop: every connection is reset.
func (p *faultProxy) setMode(m proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m == p.mode {
		return
	}
	if m == proxyDrop {
		p.drops.Add(1)
	}
	for pc := range p.conns {
		switch {
		case m == proxyHang && !pc.held:
			pc.held = true
			_ = pc.upstream.Close()
		case m == proxyDrop || pc.held:
			delete(p.conns, pc)
			if tc, ok := pc.client.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			closeConns(pc)
		}
	}
	p.mode = m
}

// flap alternates proxyDrop and proxyPass every half, starting with a drop, until the
// returned stop, which leaves the proxy passing.
func (p *faultProxy) flap(half time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	p.setMode(proxyDrop)
	wg.Go(func() {
		tick := time.NewTicker(half)
		defer tick.Stop()
		drop := true
		for {
			select {
			case <-done:
				p.setMode(proxyPass)
				return
			case <-tick.C:
				drop = !drop
				if drop {
					p.setMode(proxyDrop)
				} else {
					p.setMode(proxyPass)
				}
			}
		}
	})
	return sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
}

func (p *faultProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for pc := range p.conns {
		closeConns(pc)
	}
	p.conns = map[*proxyConn]struct{}{}
}

func closeConns(pc *proxyConn) {
	_ = pc.client.Close()
	if pc.upstream != nil {
		_ = pc.upstream.Close()
	}
}

// reset closes c with a TCP reset, as a host with nothing listening answers.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
