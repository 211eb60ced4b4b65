package workloadcluster

import (
	"fmt"
	"net/http"
)

// refuseProtocolSwitch wraps every transport to a member's API server. The control plane
// only lists, watches and reads /version there, none of which switches protocols, and
// net/http hands a 101 back with the raw connection as its body, which no timeout of the
// request bounds: a member answering 101 would hold the reading goroutine for as long as
// it stayed silent. The answer is refused and its connection closed.
func refuseProtocolSwitch(rt http.RoundTripper) http.RoundTripper {
	return protocolSwitchRefuser{next: rt}
}

type protocolSwitchRefuser struct{ next http.RoundTripper }

func (p protocolSwitchRefuser) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(req)
	if err != nil || resp.StatusCode >= http.StatusOK {
		return resp, err
	}
	resp.Body.Close()
	return nil, fmt.Errorf("the member's API server answered HTTP %d, which no request of the control plane asks for", resp.StatusCode)
}
