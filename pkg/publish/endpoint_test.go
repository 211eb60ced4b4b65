package publish

import (
	"errors"
	"testing"
)

// BackendHost reads what the plan reads from an entry's endpoint: the canonical host, or
// why the entry cannot have a backend.
func TestBackendHost(t *testing.T) {
	cases := []struct {
		endpoint, host string
		invalid        bool   // an *InvalidEndpoint
		err            string // the whole error text; "" for accepted
	}{
		{endpoint: "http://llm.worker-b.example.com/", host: "llm.worker-b.example.com"},
		{endpoint: "https://llm.worker-b.example.com.:8443/v1", host: "llm.worker-b.example.com"},
		{endpoint: "http://LLM.Worker-B.Example.COM./", host: "llm.worker-b.example.com"},
		{endpoint: "http://:80/", invalid: true, err: "the endpoint has no host"},
		{endpoint: "ftp://llm.worker-b.example.com/", invalid: true, err: `the endpoint has the scheme "ftp", not http or https`},
		{endpoint: "llm.worker-b.example.com", invalid: true, err: `the endpoint has the scheme "", not http or https`},
		{endpoint: "http://llm.worker-b.example.com/%zz", invalid: true, err: "the endpoint is not a URL"},
		{endpoint: "http://llm_b.example.com/", host: "llm_b.example.com",
			err: `backend hostname: hostname "llm_b.example.com" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{endpoint: "http://llm.example.com../", host: "llm.example.com.",
			err: `backend hostname: hostname "llm.example.com." is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	}
	for _, c := range cases {
		t.Run(c.endpoint, func(t *testing.T) {
			host, err := BackendHost(c.endpoint)
			if host != c.host {
				t.Errorf("host = %q, want %q", host, c.host)
			}
			var invalid *InvalidEndpoint
			if errors.As(err, &invalid) != c.invalid {
				t.Errorf("error %v: InvalidEndpoint = %v, want %v", err, !c.invalid, c.invalid)
			}
			if got := errString(err); got != c.err {
				t.Errorf("error:\n%s\nwant:\n%s", got, c.err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A member's host with a trailing dot or capitals is published in its canonical form, the
// form the publish guard checked, instead of refusing the whole map.
func TestBuildCanonicalBackendHost(t *testing.T) {
	p, err := Build(input(makeMap().entry("worker-b", "http://LLM.worker-b.example.com./", 1).obj(), guideEndpoint()))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Backends) != 1 || p.Backends[0].Host != "llm.worker-b.example.com" {
		t.Fatalf("backends = %+v, want one at llm.worker-b.example.com", p.Backends)
	}
}
