package soak

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// proxies are the TCP proxies on loopback between the managers and the API servers,
// Shopify's toxiproxy run as a library in this process: one in front of the control
// plane, which slows it down, and one in front of the member that the run cuts off.
type proxies struct {
	server *toxiproxy.ApiServer
}

func newProxies() *proxies {
	return &proxies{server: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())}
}

// faultProxy is one proxy and the faults it can add.
type faultProxy struct {
	p *toxiproxy.Proxy
}

// start proxies a loopback port to the API server at host (an https:// URL) and returns
// the proxy; URL is the address to give clients instead.
func (ps *proxies) start(name, host string) (*faultProxy, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, err
	}
	p := toxiproxy.NewProxy(ps.server, name, "127.0.0.1:0", u.Host)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("start proxy %s to %s: %w", name, u.Host, err)
	}
	return &faultProxy{p: p}, nil
}

// URL is the proxy's address as an https:// URL: the API servers' certificates name
// 127.0.0.1, whatever the port.
func (f *faultProxy) URL() string { return "https://" + f.p.Listen }

func (f *faultProxy) stop() { f.p.Stop() }

// slow delays every answer of the API server by latency: each request takes that much
// longer, and watch events arrive that much later. A second call replaces the first.
func (f *faultProxy) slow(ms int64) error {
	f.clear()
	return f.add(fmt.Sprintf(`{"name":"latency","type":"latency","stream":"downstream","attributes":{"latency":%d}}`, ms))
}

// cut drops everything in both directions and closes nothing: connections hang, as they
// do across a network partition, and new ones open to the proxy but get no answer.
func (f *faultProxy) cut() error {
	f.clear()
	for _, stream := range []string{"upstream", "downstream"} {
		if err := f.add(fmt.Sprintf(`{"name":"cut_%s","type":"timeout","stream":%q,"attributes":{"timeout":0}}`, stream, stream)); err != nil {
			return err
		}
	}
	return nil
}

// clear removes every fault.
func (f *faultProxy) clear() { f.p.Toxics.ResetToxics(context.Background()) }

func (f *faultProxy) add(spec string) error {
	if _, err := f.p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
		return fmt.Errorf("add fault %s to proxy %s: %w", spec, f.p.Name, err)
	}
	return nil
}
