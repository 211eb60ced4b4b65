package placement

import (
	"strings"
	"testing"
)

func TestCheckEndpoint(t *testing.T) {
	long := "https://model.example.com/" + strings.Repeat("a", MaxEndpointLength-len("https://model.example.com/"))
	cases := []struct {
		url  string
		want string // the whole error text; "" for accepted
	}{
		{"https://model.example.com", ""},
		{"http://10.0.0.1:8080/serving/qwen", ""},
		{"https://[2001:db8::1]:8443/", ""},
		{long, ""},
		{long + "a", "it is 2049 characters long, over the limit of 2048"},
		// Characters, not bytes: 2048 two-byte characters are within the limit.
		{"https://h/" + strings.Repeat("é", MaxEndpointLength-len("https://h/")), ""},
		{"https://h/" + strings.Repeat("é", MaxEndpointLength-len("https://h/")+1), "it is 2049 characters long, over the limit of 2048"},
		{"https://probe:s3cret@model.example.com/", "it carries user information"},
		{"https://s3cret@model.example.com/", "it carries user information"},
		{"https://:s3cret@model.example.com/", "it carries user information"},
		{"https://model.example.com/?token=s3cret", "it has a query"},
		{"https://model.example.com/?", "it has a query"},
		{"https://model.example.com/#access_token=s3cret", "it has a fragment"},
		{"https://model.example.com/%zz", "it is not a URL"},
		{"https://s3cret@[::1", "it is not a URL"},
		{"mailto:s3cret@example.com", "it has no host"},
		{"/relative/path", "it has no host"},
		// What the route could not name is refused here, at the source, so the routing side
		// marks the home refused instead of the publisher freezing the route.
		{"http://:80/", "it has no host"},
		{"ftp://model.example.com/", "its scheme is not http or https"},
		{"grpc://model.example.com:9000", "its scheme is not http or https"},
		{"http://model_a.example.com/", "its host is neither a DNS name (RFC 1123) nor an IP address"},
		{"http://model.example.com../", "its host is neither a DNS name (RFC 1123) nor an IP address"},
		// One trailing dot and capitals are the same name, which the publisher writes in
		// its canonical form.
		{"http://llm.worker-b.example.com./", ""},
		{"http://LLM.Worker-B.example.com/", ""},
	}
	for _, tc := range cases {
		name := tc.url
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			err := CheckEndpoint(tc.url)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "example") {
				t.Fatalf("error %q quotes the URL", err)
			}
		})
	}
}
