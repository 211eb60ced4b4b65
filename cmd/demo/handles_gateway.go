package main

// handles_gateway.go adds the handles an on-call rehearses the gateway's questions with:
// real requests that fail while the probe passes (a passive gate, which a probe cannot
// see), a steady stream of real requests for the traffic signal to count, and HAProxy
// Ingress's controller stopped and resumed (a lost update: the route changes, haproxy keeps
// its old configuration).

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ome-routing/operator/internal/traffic"
)

// trafficStatuses are the statuses real requests can be made to fail with, by the word a
// handle takes; 200 stops the failures.
var trafficStatuses = map[string]int{"200": 0, "503": http.StatusServiceUnavailable, "404": http.StatusNotFound, "502": http.StatusBadGateway}

// maxLoadRate bounds the stream a handle starts, in requests per second: enough for any
// passive gate's minimum volume, far from loading the machine.
const maxLoadRate = 50

// gatewayState is what the handles last set for the gateway.
type gatewayState struct {
	controllerStopped bool
	rate              int
	load              *traffic.Load
}

func (s *gatewayState) String() string {
	controller := "running"
	if s.controllerStopped {
		controller = "stopped"
	}
	return fmt.Sprintf("controller=%s load=%d/s", controller, s.rate)
}

// parseTraffic reads "503" (every real request fails) or "503/3" (every third one).
func parseTraffic(word string) (status, every int, ok bool) {
	code, share, shared := strings.Cut(word, "/")
	status, ok = trafficStatuses[code]
	if !ok {
		return 0, 0, false
	}
	every = 1
	if shared {
		n, err := strconv.Atoi(share)
		if err != nil || n < 1 || n > 1000 {
			return 0, 0, false
		}
		every = n
	}
	if status == 0 {
		every = 0
	}
	return status, every, true
}

// setTraffic makes the worker's model server fail real requests (those the demo's
// requests mark with modelserver.TrafficHeader) while it answers probes as its answer
// handle says.
func (h *handles) setTraffic(w http.ResponseWriter, r *http.Request) {
	worker, word, ok := h.word(w, r)
	if !ok {
		return
	}
	status, every, ok := parseTraffic(word)
	if !ok {
		http.Error(w, fmt.Sprintf("traffic %q: want 200, 503, 404 or 502, optionally /N for every N-th request (503/3)", word), http.StatusBadRequest)
		return
	}
	h.d.servers.Endpoints[worker].SetTrafficFailures(every, status)
	h.set(w, worker, func(s *workerState) { s.traffic = word })
}

// setController stops (SIGSTOP) or resumes (SIGCONT) HAProxy Ingress's controller; haproxy
// keeps serving with the configuration it last loaded.
func (h *handles) setController(w http.ResponseWriter, r *http.Request) {
	word, ok := h.gatewayWord(w, r)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var err error
	switch {
	case word == "stop" && !h.gw.controllerStopped:
		err = h.d.gateway.Pause()
	case word == "start" && h.gw.controllerStopped:
		err = h.d.gateway.Resume()
	case word != "stop" && word != "start":
		http.Error(w, fmt.Sprintf("controller %q: want stop or start", word), http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.gw.controllerStopped = word == "stop"
	h.writeGateway(w)
}

// setLoad starts a steady stream of real requests through haproxy at the given rate, or
// stops it with 0.
func (h *handles) setLoad(w http.ResponseWriter, r *http.Request) {
	word, ok := h.gatewayWord(w, r)
	if !ok {
		return
	}
	rate, err := strconv.Atoi(word)
	if err != nil || rate < 0 || rate > maxLoadRate {
		http.Error(w, fmt.Sprintf("load %q: want requests per second, 0 to %d", word, maxLoadRate), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopLoad()
	if rate > 0 {
		// An hour at most: a forgotten stream ends by itself.
		h.gw.load = h.d.traffic.StartLoad(context.Background(), rate, rate*3600)
	}
	h.gw.rate = rate
	h.writeGateway(w)
}

// stopLoad ends the stream, if any; the caller holds h.mu.
func (h *handles) stopLoad() {
	if h.gw.load != nil {
		h.gw.load.Stop()
		h.gw.load = nil
	}
}

// gatewayWord reads a gateway handle's word, or refuses when the demo runs no gateway.
func (h *handles) gatewayWord(w http.ResponseWriter, r *http.Request) (string, bool) {
	if h.d.gateway == nil || h.d.traffic == nil {
		http.Error(w, "no gateway runs in this demo (HAProxy Ingress could not start here; see the demo's output)", http.StatusConflict)
		return "", false
	}
	return readWord(w, r)
}

func (h *handles) writeGateway(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "gateway %s\n", &h.gw) //nolint:gosec // plain text of the demo's own words
}
