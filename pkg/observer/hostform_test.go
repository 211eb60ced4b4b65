package observer

import (
	"strings"
	"testing"
)

func TestCheckHostForm(t *testing.T) {
	const (
		ok       = ""
		number   = "ends in a number"
		literal  = "is an IP address"
		loopback = "reserved for loopback"
		empty    = "is empty"
	)
	cases := []struct{ host, want string }{
		{"worker-a.example.com", ok},
		{"llm.worker-a.example.com.", ok},
		{"1.2.3.4.example.com", ok},
		{"0x7f.example", ok},
		{"123abc", ok},
		{"0xg", ok},
		{"metadata.google.internal", ok}, // a name: its addresses decide
		// Forms inet_aton reads as an IPv4 address.
		{"127.1", number},
		{"0x7f.1", number},
		{"2130706433", number},
		{"0177.0.0.1", number},
		{"0251.0376.0251.0376", number},
		{"01.2.3.4", number},
		{"0", number},
		{"0x7f000001", number},
		{"0X7F000001", number},
		{"0x", number},
		{"example.0x1", number},
		{"127.0.0.1.", literal},
		{"localhost.example.123", number},
		// Canonical literals.
		{"127.0.0.1", literal},
		{"169.254.169.254", literal},
		{"::1", literal},
		{"[::1]", literal},
		{"fe80::1%eth0", literal},
		{"localhost", loopback},
		{"LOCALHOST.", loopback},
		{"model.localhost", loopback},
		{"", empty},
		{".", empty},
	}
	for _, tc := range cases {
		err := CheckHostForm(tc.host)
		switch {
		case tc.want == ok && err != nil:
			t.Errorf("CheckHostForm(%q) = %v, want nil", tc.host, err)
		case tc.want != ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckHostForm(%q) = %v, want an error containing %q", tc.host, err, tc.want)
		}
	}
}
