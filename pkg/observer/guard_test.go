package observer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// resolveTo returns a lookup seam that answers name with addrs and fails the test for any
// other name, so a test cannot reach the real resolver by accident.
func resolveTo(t *testing.T, name string, addrs ...netip.Addr) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		if host != name {
			t.Errorf("lookup of unexpected host %q", host)
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return addrs, nil
	}
}

func TestGuardCheck(t *testing.T) {
	type verdict struct{ strict, loopback, private, both string }
	const ok = ""
	// Each verdict is the refusal's kind ("" for allowed) under: no allowance,
	// AllowLoopback only, AllowPrivateNetworks only, and both.
	cases := []struct {
		addr string
		want verdict
	}{
		{"169.254.169.254", verdict{"link-local", "link-local", "link-local", "link-local"}},
		{"169.254.0.1", verdict{"link-local", "link-local", "link-local", "link-local"}},
		{"::ffff:169.254.169.254", verdict{"link-local", "link-local", "link-local", "link-local"}},
		{"fe80::1", verdict{"link-local", "link-local", "link-local", "link-local"}},
		{"fe80::1%eth0", verdict{"link-local", "link-local", "link-local", "link-local"}},
		{"febf::1", verdict{"link-local", "link-local", "link-local", "link-local"}},
		{"224.0.0.1", verdict{"multicast", "multicast", "multicast", "multicast"}},
		{"239.1.2.3", verdict{"multicast", "multicast", "multicast", "multicast"}},
		{"ff02::1", verdict{"multicast", "multicast", "multicast", "multicast"}},
		{"127.0.0.1", verdict{"loopback", ok, "loopback", ok}},
		{"127.8.9.10", verdict{"loopback", ok, "loopback", ok}},
		{"::1", verdict{"loopback", ok, "loopback", ok}},
		{"::ffff:127.0.0.1", verdict{"loopback", ok, "loopback", ok}},
		// 0.0.0.0/8 and :: name no destination; no option opens them.
		{"0.0.0.0", verdict{"0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8"}},
		{"0.1.2.3", verdict{"0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8"}},
		{"::ffff:0.0.0.0", verdict{"0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8"}},
		{"::", verdict{"unspecified", "unspecified", "unspecified", "unspecified"}},
		{"240.0.0.1", verdict{"240.0.0.0/4", "240.0.0.0/4", "240.0.0.0/4", "240.0.0.0/4"}},
		{"255.255.255.255", verdict{"240.0.0.0/4", "240.0.0.0/4", "240.0.0.0/4", "240.0.0.0/4"}},
		// Cloud metadata services outside 169.254/16, inside ranges an option opens.
		{"fd00:ec2::254", verdict{"metadata", "metadata", "metadata", "metadata"}},
		{"fd00:ec2::254%eth0", verdict{"metadata", "metadata", "metadata", "metadata"}},
		{"100.100.100.200", verdict{"metadata", "metadata", "metadata", "metadata"}},
		{"::ffff:100.100.100.200", verdict{"metadata", "metadata", "metadata", "metadata"}},
		{"fd00:ec2::253", verdict{"private", "private", ok, ok}},
		{"100.100.100.201", verdict{"private", "private", ok, ok}},
		// IPv6 forms that carry an IPv4 address get that address's verdict.
		{"64:ff9b::a9fe:a9fe", verdict{"NAT64 embedding 169.254.169.254, which is link-local", "link-local", "link-local", "link-local"}},
		{"64:ff9b::100.100.100.200", verdict{"metadata", "metadata", "metadata", "metadata"}},
		{"64:ff9b::127.0.0.1", verdict{"NAT64 embedding 127.0.0.1, which is loopback", ok, "loopback", ok}},
		{"64:ff9b::10.0.0.1", verdict{"private", "private", ok, ok}},
		{"64:ff9b::0.0.0.0", verdict{"0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8"}},
		{"64:ff9b::8.8.8.8", verdict{ok, ok, ok, ok}},
		{"2002:a9fe:a9fe::1", verdict{"6to4 embedding 169.254.169.254, which is link-local", "link-local", "link-local", "link-local"}},
		{"2002:7f00:1::", verdict{"6to4 embedding 127.0.0.1", ok, "loopback", ok}},
		{"2002:c0a8:101::1", verdict{"private", "private", ok, ok}},
		{"2002:f000:1::", verdict{"240.0.0.0/4", "240.0.0.0/4", "240.0.0.0/4", "240.0.0.0/4"}},
		{"2002:808:808::1", verdict{ok, ok, ok, ok}},
		{"::169.254.169.254", verdict{"IPv4-compatible embedding 169.254.169.254, which is link-local", "link-local", "link-local", "link-local"}},
		{"::127.0.0.1", verdict{"IPv4-compatible embedding 127.0.0.1", ok, "loopback", ok}},
		{"::10.1.2.3", verdict{"private", "private", ok, ok}},
		{"::0.0.0.2", verdict{"0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8", "0.0.0.0/8"}},
		{"::8.8.8.8", verdict{ok, ok, ok, ok}},
		{"2606:4700::1111", verdict{ok, ok, ok, ok}},
		{"64:ff9c::a9fe:a9fe", verdict{ok, ok, ok, ok}},
		{"10.0.0.1", verdict{"private", "private", ok, ok}},
		{"172.16.0.1", verdict{"private", "private", ok, ok}},
		{"172.31.255.254", verdict{"private", "private", ok, ok}},
		{"192.168.1.1", verdict{"private", "private", ok, ok}},
		{"100.64.0.1", verdict{"private", "private", ok, ok}},
		{"100.127.255.254", verdict{"private", "private", ok, ok}},
		{"::ffff:10.1.2.3", verdict{"private", "private", ok, ok}},
		{"::ffff:100.64.0.1", verdict{"private", "private", ok, ok}},
		{"fd00::1", verdict{"private", "private", ok, ok}},
		{"fc00::1", verdict{"private", "private", ok, ok}},
		{"8.8.8.8", verdict{ok, ok, ok, ok}},
		{"172.32.0.1", verdict{ok, ok, ok, ok}},
		{"100.128.0.1", verdict{ok, ok, ok, ok}},
		{"169.255.0.1", verdict{ok, ok, ok, ok}},
		{"2001:db8::1", verdict{ok, ok, ok, ok}},
	}
	guards := []struct {
		name string
		g    Guard
		pick func(verdict) string
	}{
		{"strict", Guard{}, func(v verdict) string { return v.strict }},
		{"loopback allowed", Guard{Loopback: Allowance{Allowed: true}}, func(v verdict) string { return v.loopback }},
		{"private allowed", Guard{Private: Allowance{Allowed: true}}, func(v verdict) string { return v.private }},
		{"both allowed", Guard{Loopback: Allowance{Allowed: true}, Private: Allowance{Allowed: true}}, func(v verdict) string { return v.both }},
	}
	// Every row again with a zone, which names an interface and leaves the destination as
	// it is: the verdict must not change. An IPv4 address takes a zone only in its
	// IPv4-mapped form.
	for _, tc := range slices.Clone(cases) {
		zoned := tc.addr
		if !strings.Contains(zoned, ":") {
			zoned = "::ffff:" + zoned
		}
		if !strings.Contains(zoned, "%") {
			cases = append(cases, struct {
				addr string
				want verdict
			}{zoned + "%x", tc.want}, struct {
				addr string
				want verdict
			}{zoned + "%eth0", tc.want})
		}
	}
	for _, tc := range cases {
		for _, gc := range guards {
			t.Run(tc.addr+"/"+gc.name, func(t *testing.T) {
				err := gc.g.Check(netip.MustParseAddr(tc.addr))
				wantKind := gc.pick(tc.want)
				if wantKind == ok {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					return
				}
				var refused *RefusedError
				if !errors.As(err, &refused) {
					t.Fatalf("got %v, want a refusal (%s)", err, wantKind)
				}
				if !strings.Contains(refused.Kind, wantKind) {
					t.Fatalf("refused as %q, want %q", refused.Kind, wantKind)
				}
			})
		}
	}
}

// TestGuardRefusesAtDial sends real requests and shows each refusal comes from the
// dialer, naming the address, and that nothing reached a listener.
func TestGuardRefusesAtDial(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	cases := []struct {
		name   string
		url    string
		lookup []netip.Addr // the seam's answer for the URL's host name, if it has one
		opts   func(*Options)
		want   string // the whole error text
	}{
		{
			name: "metadata address",
			url:  "http://169.254.169.254/latest/meta-data/",
			want: `Get "http://169.254.169.254/latest/meta-data/": dial tcp 169.254.169.254:80: destination 169.254.169.254 is link-local and refused by the observer's network guard`,
		},
		{
			name: "IPv6 link-local with zone",
			url:  "http://[fe80::1%25eth0]:8080/",
			want: `Get "http://[fe80::1%25eth0]:8080/": dial tcp [fe80::1%eth0]:8080: destination fe80::1%eth0 is link-local and refused by the observer's network guard`,
		},
		{
			name: "IPv4-mapped metadata address",
			url:  "https://[::ffff:169.254.169.254]/",
			want: `Get "https://[::ffff:169.254.169.254]/": dial tcp 169.254.169.254:443: destination ::ffff:169.254.169.254 is link-local and refused by the observer's network guard`,
		},
		{
			name:   "name resolving to the metadata address",
			url:    "http://metadata.evil.test/",
			lookup: []netip.Addr{netip.MustParseAddr("169.254.169.254")},
			want:   `Get "http://metadata.evil.test/": dial tcp 169.254.169.254:80: destination 169.254.169.254 is link-local and refused by the observer's network guard`,
		},
		{
			name:   "name resolving to IPv6 link-local",
			url:    "http://router.evil.test:8000/",
			lookup: []netip.Addr{netip.MustParseAddr("fe80::1")},
			want:   `Get "http://router.evil.test:8000/": dial tcp [fe80::1]:8000: destination fe80::1 is link-local and refused by the observer's network guard`,
		},
		{
			name: "loopback literal without AllowLoopback",
			url:  "http://127.0.0.1:" + port + "/",
			opts: func(o *Options) { o.AllowLoopback = false },
			want: `Get "http://127.0.0.1:` + port + `/": dial tcp 127.0.0.1:` + port + `: destination 127.0.0.1 is loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)`,
		},
		{
			name:   "name resolving to loopback without AllowLoopback",
			url:    "http://model.evil.test:" + port + "/",
			lookup: []netip.Addr{netip.MustParseAddr("::1"), netip.MustParseAddr("127.0.0.1")},
			opts:   func(o *Options) { o.AllowLoopback = false },
			want:   `Get "http://model.evil.test:` + port + `/": dial tcp [::1]:` + port + `: destination ::1 is loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)`,
		},
		{
			name: "unspecified even with AllowLoopback",
			url:  "http://0.0.0.0:" + port + "/",
			want: `Get "http://0.0.0.0:` + port + `/": dial tcp 0.0.0.0:` + port + `: destination 0.0.0.0 is in 0.0.0.0/8 (this network) and refused by the observer's network guard`,
		},
		{
			name:   "name resolving to the AWS IPv6 metadata address",
			url:    "http://imds.evil.test/",
			lookup: []netip.Addr{netip.MustParseAddr("fd00:ec2::254")},
			opts:   func(o *Options) { o.AllowPrivateNetworks = true },
			want:   `Get "http://imds.evil.test/": dial tcp [fd00:ec2::254]:80: destination fd00:ec2::254 is a cloud metadata address and refused by the observer's network guard`,
		},
		{
			name: "NAT64 address of the metadata service",
			url:  "http://[64:ff9b::a9fe:a9fe]/",
			want: `Get "http://[64:ff9b::a9fe:a9fe]/": dial tcp [64:ff9b::a9fe:a9fe]:80: destination 64:ff9b::a9fe:a9fe is NAT64 embedding 169.254.169.254, which is link-local and refused by the observer's network guard`,
		},
		{
			name: "6to4 address of a private host",
			url:  "http://[2002:a01:203::1]:8080/",
			want: `Get "http://[2002:a01:203::1]:8080/": dial tcp [2002:a01:203::1]:8080: destination 2002:a01:203::1 is 6to4 embedding 10.1.2.3, which is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)`,
		},
		// A zone on an address that carries an IPv4 one does not hide that address.
		{
			name: "zoned NAT64 address of the metadata service",
			url:  "http://[64:ff9b::a9fe:a9fe%25x]/",
			want: `Get "http://[64:ff9b::a9fe:a9fe%25x]/": dial tcp [64:ff9b::a9fe:a9fe%x]:80: destination 64:ff9b::a9fe:a9fe%x is NAT64 embedding 169.254.169.254, which is link-local and refused by the observer's network guard`,
		},
		{
			name: "zoned 6to4 address of the metadata service",
			url:  "http://[2002:a9fe:a9fe::%25eth0]/",
			want: `Get "http://[2002:a9fe:a9fe::%25eth0]/": dial tcp [2002:a9fe:a9fe::%eth0]:80: destination 2002:a9fe:a9fe::%eth0 is 6to4 embedding 169.254.169.254, which is link-local and refused by the observer's network guard`,
		},
		{
			name: "zoned IPv4-compatible address of the metadata service",
			url:  "http://[::a9fe:a9fe%25x]/",
			want: `Get "http://[::a9fe:a9fe%25x]/": dial tcp [::a9fe:a9fe%x]:80: destination ::a9fe:a9fe%x is IPv4-compatible embedding 169.254.169.254, which is link-local and refused by the observer's network guard`,
		},
		{
			name: "zoned NAT64 address of loopback without AllowLoopback",
			url:  "http://[64:ff9b::7f00:1%25x]:" + port + "/",
			opts: func(o *Options) { o.AllowLoopback = false },
			want: `Get "http://[64:ff9b::7f00:1%25x]:` + port + `/": dial tcp [64:ff9b::7f00:1%x]:` + port + `: destination 64:ff9b::7f00:1%x is NAT64 embedding 127.0.0.1, which is loopback and refused by the observer's network guard (routing.observer.allowLoopback is off)`,
		},
		{
			name:   "name resolving to a zoned unspecified address",
			url:    "http://any.evil.test:" + port + "/",
			lookup: []netip.Addr{netip.MustParseAddr("::%eth0")},
			want:   `Get "http://any.evil.test:` + port + `/": dial tcp [::%eth0]:` + port + `: destination ::%eth0 is unspecified and refused by the observer's network guard`,
		},
		{
			name: "private network",
			url:  "http://10.1.2.3:8080/v1/models",
			want: `Get "http://10.1.2.3:8080/v1/models": dial tcp 10.1.2.3:8080: destination 10.1.2.3 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)`,
		},
		{
			name: "multicast",
			url:  "http://224.0.0.1/",
			opts: func(o *Options) { o.AllowPrivateNetworks = true },
			want: `Get "http://224.0.0.1/": dial tcp 224.0.0.1:80: destination 224.0.0.1 is multicast and refused by the observer's network guard`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := newObserver(t, tc.opts)
			if tc.lookup != nil {
				u, err := url.Parse(tc.url)
				if err != nil {
					t.Fatal(err)
				}
				o.lookupIP = resolveTo(t, u.Hostname(), tc.lookup...)
			}
			res := o.Do(t.Context(), Request{URL: tc.url, Timeout: shortTimeout})
			want(t, res, OutcomeTransportError, 0)
			if res.Err.Error() != tc.want {
				t.Fatalf("error\n got %s\nwant %s", res.Err, tc.want)
			}
			var refused *RefusedError
			if !errors.As(res.Err, &refused) {
				t.Fatalf("error %v does not carry the guard's refusal", res.Err)
			}
		})
	}
	if got := conns.Load(); got != 0 {
		t.Fatalf("%d connections reached the loopback server, want 0", got)
	}

	// The real resolver's answer is checked too: localhost is loopback.
	t.Run("localhost through the system resolver", func(t *testing.T) {
		o := newObserver(t, func(o *Options) { o.AllowLoopback = false })
		res := o.Do(t.Context(), Request{URL: "http://localhost:" + port + "/", Timeout: shortTimeout})
		want(t, res, OutcomeTransportError, 0, "is loopback and refused by the observer's network guard")
		if got := conns.Load(); got != 0 {
			t.Fatalf("%d connections reached the loopback server, want 0", got)
		}
	})
}

// TestGuardSkipsRefusedAddresses shows a name with one refused and one allowed address is
// dialled at the allowed one only.
func TestGuardSkipsRefusedAddresses(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	o := newObserver(t, nil)
	o.lookupIP = resolveTo(t, "mixed.example.test",
		netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("127.0.0.1"))
	res := o.Do(t.Context(), Request{URL: "http://mixed.example.test:" + port + "/", Timeout: longTimeout})
	want(t, res, OutcomeResponse, http.StatusOK)
	if got := conns.Load(); got != 1 {
		t.Fatalf("%d connections, want 1", got)
	}
}

// TestOtherSchemesNeverDial aims URLs of other schemes at a live listener and shows that
// none of them opens a connection.
func TestOtherSchemesNeverDial(t *testing.T) {
	srv, conns := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	addr := srv.Listener.Addr().String()
	o := newObserver(t, nil)
	cases := []struct{ url, scheme string }{
		{"ftp://" + addr + "/pub", "ftp"},
		{"file:///etc/passwd", "file"},
		{"gopher://" + addr + "/", "gopher"},
		{"ws://" + addr + "/", "ws"},
		{"FTP://" + addr + "/", "ftp"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			res := o.Do(t.Context(), Request{URL: tc.url, Timeout: shortTimeout})
			want(t, res, OutcomeTransportError, 0, `scheme "`+tc.scheme+`" refused: the observer only sends http and https`)
			if res.SlotWait != 0 || res.Duration != 0 {
				t.Fatalf("SlotWait %v Duration %v: a refused URL should not take a slot", res.SlotWait, res.Duration)
			}
		})
	}
	if got := conns.Load(); got != 0 {
		t.Fatalf("%d connections reached the listener, want 0", got)
	}
}
