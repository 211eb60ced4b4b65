package observer

import (
	"fmt"
	"net/netip"
	"strings"
)

// CheckHostForm refuses a host name, before any lookup, for what its form alone says: it
// is empty, an IP literal, a form that resolvers read as an IPv4 address, or a name
// reserved for loopback. It is for hosts handed on to someone else's resolver, such as a
// gateway's: the observer itself resolves every host and checks the addresses, so it
// needs no such rule, but a gateway may read "127.1" as 127.0.0.1 without asking DNS.
//
// The numeric forms are the WHATWG URL standard's "ends in a number": the last label
// (after a trailing dot is dropped) is all digits, or 0x and hex digits, as in 127.1,
// 0x7f.1, 2130706433, 0177.0.0.1 and 0. inet_aton and the URL parsers of browsers and
// proxies take each of these for an address. A real top-level domain is never numeric.
func CheckHostForm(host string) error {
	name := strings.TrimSuffix(host, ".")
	switch {
	case name == "":
		return fmt.Errorf("host %q is empty", host)
	case isIPLiteral(name):
		return fmt.Errorf("host %q is an IP address, not a name", host)
	case endsInNumber(name):
		return fmt.Errorf("host %q ends in a number, which resolvers read as an IPv4 address", host)
	}
	lower := strings.ToLower(name)
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return fmt.Errorf("host %q is reserved for loopback (RFC 6761), which resolvers answer without DNS", host)
	}
	return nil
}

func isIPLiteral(name string) bool {
	_, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	return err == nil
}

// endsInNumber is the WHATWG URL standard's test of a host's last label.
func endsInNumber(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	if allOf(last, isDigit) {
		return true
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		return allOf(last[2:], isHexDigit)
	}
	return false
}

func allOf(s string, pred func(byte) bool) bool {
	for i := range len(s) {
		if !pred(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// CanonicalHost is the form of a host that the operator compares, checks and hands on:
// lower case, without one trailing dot. DNS ignores case, and "name." is the fully
// qualified spelling of "name", so a member that writes either means the same server;
// a second trailing dot is left, for the checks to refuse.
func CanonicalHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}
