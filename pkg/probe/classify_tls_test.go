package probe

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/observer"
)

// hostileCertServer is a loopback TLS server whose certificate names only dnsName.
func hostileCertServer(t *testing.T, dnsName string) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: dnsName}, DNSNames: []string{dnsName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	return srv, roots
}

// A member controls its endpoint's certificate. Go's hostname error quotes the names in
// it as they are, so a name with ESC and BEL bytes would reach the probe message, the
// HomeGated event and every terminal that prints them, where it could clear the screen
// and write a fake "Passing" line. The message holds them as printable escapes.
func TestClassifyEscapesControlCharactersFromAMembersCertificate(t *testing.T) {
	const hostile = "\x1b[2J\x1b[H\a\x1b]0;owned\aPassing.example"
	srv, roots := hostileCertServer(t, hostile)
	obs, err := observer.New(observer.Options{MaxConcurrentRequests: 1, MaxResponseBytes: 1024, AllowLoopback: true, RootCAs: roots,
		Hosts: map[string]netip.Addr{"model.example.test": netip.MustParseAddr("127.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(obs.Close)
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	res := obs.Do(context.Background(), observer.Request{URL: "https://model.example.test" + port + "/", Timeout: 5 * time.Second, Tenant: "t"})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "\x1b[2J") {
		t.Fatalf("the TLS error does not quote the certificate's name raw, so this test shows nothing: %v", res.Err)
	}

	result, message, counted := Classify(res, Policy{})
	if result != v1beta1.ProbeFailing || !counted {
		t.Fatalf("Classify = %s (counted %v), want a counted Failing", result, counted)
	}
	if i := strings.IndexFunc(message, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }); i >= 0 {
		t.Fatalf("message %q holds control character %q", message, message[i:i+1])
	}
	if want := `certificate is valid for \x1b[2J\x1b[H\x07\x1b]0;owned\x07Passing.example, not model.example.test`; !strings.Contains(message, want) {
		t.Fatalf("message %q does not hold the escaped name %q", message, want)
	}
}
