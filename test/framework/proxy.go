package framework

import (
	"errors"
	"io"
	"net"
	"sync"
)

// Proxy is a TCP proxy on loopback in front of one address, such as an API server's. Cut
// closes every connection through it and refuses new ones, which is what the clients of
// an API server see while it restarts; Resume accepts again on the same address. TLS
// passes through untouched, so a certificate for 127.0.0.1 stays valid through it.
type Proxy struct {
	target string
	addr   string

	mu       sync.Mutex
	listener net.Listener
	conns    map[net.Conn]struct{}
}

// StartProxy starts a proxy to target on a free loopback port.
func StartProxy(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, addr: l.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(l)
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// Cut closes the listening socket and every connection through the proxy.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		_ = p.listener.Close()
		p.listener = nil
	}
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Resume listens again on the proxy's address.
func (p *Proxy) Resume() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		return nil
	}
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.serveLocked(l)
	return nil
}

// Close stops the proxy for good.
func (p *Proxy) Close() { p.Cut() }

func (p *Proxy) serve(l net.Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.serveLocked(l)
}

func (p *Proxy) serveLocked(l net.Listener) {
	p.listener = l
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			go p.pipe(c)
		}
	}()
}

// pipe copies both ways between a client and a new connection to the target.
func (p *Proxy) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
	_ = client.Close()
	_ = server.Close()
}

// track registers a pair of connections, or closes both if the proxy was cut meanwhile.
func (p *Proxy) track(client, server net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener == nil {
		_ = client.Close()
		_ = server.Close()
		return false
	}
	p.conns[client] = struct{}{}
	p.conns[server] = struct{}{}
	return true
}
