package observer

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// maxResponseHeaderBytes bounds the status line and headers of one response. net/http
// allows 10 MB by default; a probe needs a few hundred bytes, and a hostile endpoint
// should not be able to make every slot hold megabytes of header.
const maxResponseHeaderBytes = 1 << 20

// idleConnTimeout is how long an unused keep-alive connection is kept. It is longer than
// the usual probe period, so a home probed every few seconds reuses one connection and
// does not pay a TCP and TLS handshake each time.
const idleConnTimeout = 90 * time.Second

// Options configures an Observer. The two limits must be positive; the zero value of
// every other field is the strict choice.
type Options struct {
	// MaxConcurrentRequests caps the requests in flight across every caller. The slots
	// are shared fairly between the tenants that Request.Tenant names.
	MaxConcurrentRequests int64
	// MaxResponseBytes is how much of a response body is read; the rest is dropped.
	MaxResponseBytes int64
	// AllowLoopback permits 127.0.0.0/8 and ::1. The unspecified 0.0.0.0 and :: stay
	// refused: they name no destination, though a connection to them lands on the host.
	AllowLoopback bool
	// AllowPrivateNetworks permits 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16,
	// 100.64.0.0/10 and fc00::/7.
	AllowPrivateNetworks bool
	// RootCAs verifies https endpoints. Nil means the system roots.
	RootCAs *x509.CertPool
	// Metrics receives one observation per request. Nil means nothing is measured.
	Metrics *Metrics
	// Hosts resolves the named hosts to the given addresses instead of asking the
	// system's resolver, as an /etc/hosts entry would; the network guard still checks
	// the address. Tests and the local demo use it to give loopback servers the
	// two-label names a gateway accepts as backends.
	Hosts map[string]netip.Addr
}

// Observer sends the probes. It is safe for concurrent use, and one Observer is meant to
// be shared by every caller so that its cap holds for the whole process.
type Observer struct {
	slots     *slots
	maxBody   int64
	guard     Guard
	metrics   *Metrics
	dialer    *net.Dialer
	transport *http.Transport
	client    *http.Client
	// installerTransport and installerClient send the requests whose URL is the
	// installer's (Request.InstallerEndpoint), dialling through InstallerGuard.
	installerTransport *http.Transport
	installerClient    *http.Client

	// lookupIP resolves a host name for the dialer. It is a field only so that tests in
	// this package can make a name resolve to an address that no local resolver would
	// give them (a metadata address, say) and show that the guard still refuses it.
	lookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
}

// New returns an Observer, or an error when a limit is not positive.
func New(opts Options) (*Observer, error) {
	if opts.MaxConcurrentRequests <= 0 {
		return nil, fmt.Errorf("observer: MaxConcurrentRequests must be positive, got %d", opts.MaxConcurrentRequests)
	}
	if opts.MaxResponseBytes <= 0 {
		return nil, fmt.Errorf("observer: MaxResponseBytes must be positive, got %d", opts.MaxResponseBytes)
	}

	o := &Observer{
		slots:   newSlots(opts.MaxConcurrentRequests),
		maxBody: opts.MaxResponseBytes,
		guard: Guard{
			Loopback: Allowance{Allowed: opts.AllowLoopback, Setting: LoopbackSetting},
			Private:  Allowance{Allowed: opts.AllowPrivateNetworks, Setting: PrivateSetting},
		},
		metrics:  opts.Metrics,
		dialer:   &net.Dialer{KeepAlive: 30 * time.Second},
		lookupIP: lookupIP,
	}
	if len(opts.Hosts) > 0 {
		hosts := make(map[string]netip.Addr, len(opts.Hosts))
		for h, ip := range opts.Hosts {
			hosts[CanonicalHost(h)] = ip
		}
		o.lookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			// As a resolver does, "name." and "NAME" are the name.
			if ip, ok := hosts[CanonicalHost(host)]; ok {
				return []netip.Addr{ip}, nil
			}
			return lookupIP(ctx, host)
		}
	}

	// HTTP/1.1 only. Each probe then has its own connection while it runs, so dropping
	// the rest of a long body is a plain connection close, and one slow stream cannot
	// hold up other probes multiplexed behind it.
	var protocols http.Protocols
	protocols.SetHTTP1(true)

	// No more connections to one host can be in use than there are slots, so keeping
	// that many idle is enough for full reuse (net/http keeps only two by default, which
	// would churn when many services sit behind one gateway host).
	idlePerHost := math.MaxInt32
	if opts.MaxConcurrentRequests < math.MaxInt32 {
		idlePerHost = int(opts.MaxConcurrentRequests)
	}

	o.transport = &http.Transport{
		// Proxy settings in the manager's environment are for its own egress, not for
		// reaching model endpoints; a proxy would also hide the real destination from
		// the network guard, which checks the address it dials.
		Proxy:       nil,
		DialContext: o.dialThrough(o.guard),
		TLSClientConfig: &tls.Config{
			RootCAs:    opts.RootCAs,
			MinVersion: tls.VersionTLS12,
		},
		Protocols: &protocols,
		// The byte cap and BytesRead count what came over the wire; transparent gzip
		// would make them count the decompressed body instead.
		DisableCompression:     true,
		MaxIdleConnsPerHost:    idlePerHost,
		IdleConnTimeout:        idleConnTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
	o.client = &http.Client{
		Transport: o.transport,
		// A redirect is an answer in itself: the caller classifies the 3xx. Following it
		// would also let an endpoint send the prober somewhere the caller never named.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	o.installerTransport = o.transport.Clone()
	o.installerTransport.DialContext = o.dialThrough(InstallerGuard())
	o.installerClient = &http.Client{Transport: o.installerTransport, CheckRedirect: o.client.CheckRedirect}
	return o, nil
}

// Close closes the idle keep-alive connections. Requests in flight are not interrupted,
// and the Observer stays usable.
func (o *Observer) Close() {
	o.transport.CloseIdleConnections()
	o.installerTransport.CloseIdleConnections()
}

// Guard is the network guard the observer dials with, for others that must refuse what
// the probes refuse (the publisher). A nil Observer has DefaultGuard.
func (o *Observer) Guard() Guard {
	if o == nil {
		return DefaultGuard()
	}
	return o.guard
}

// DefaultGuard is the guard of an installation that opens nothing: loopback and private
// networks refused, each refusal naming the setting that would open it.
func DefaultGuard() Guard {
	return Guard{Loopback: Allowance{Setting: LoopbackSetting}, Private: Allowance{Setting: PrivateSetting}}
}

// InstallerGuard is the guard of the installer's own endpoints (Request.InstallerEndpoint):
// loopback and private networks, where an in-cluster Prometheus lives, are allowed; the
// addresses no setting opens (link-local, cloud metadata, multicast, ...) stay refused, so
// that a mistyped URL cannot reach the metadata service either.
func InstallerGuard() Guard {
	return Guard{Loopback: Allowance{Allowed: true}, Private: Allowance{Allowed: true}}
}

// LookupHost resolves host as the dialer does, Options.Hosts included, for others that
// must judge the same addresses the probes would reach (the publisher). A nil Observer
// asks the system's resolver.
func (o *Observer) LookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	if o == nil {
		return lookupIP(ctx, host)
	}
	return o.lookupIP(ctx, host)
}

// DialMember opens a connection for a client that is not a probe but must reach only
// what probes may: a workload cluster's API server, whose address a kubeconfig Secret or a
// ClusterProfile names. It resolves and checks every address as the probes' dialer does,
// with the same guard and Options.Hosts, so metadata and link-local addresses are always
// refused and loopback and private networks follow routing.observer's settings. A nil
// Observer dials with DefaultGuard.
func (o *Observer) DialMember(ctx context.Context, network, address string) (net.Conn, error) {
	if o == nil {
		o = &Observer{dialer: &net.Dialer{KeepAlive: 30 * time.Second}, lookupIP: lookupIP, guard: DefaultGuard()}
	}
	return o.dialContext(ctx, o.guard, network, address)
}
