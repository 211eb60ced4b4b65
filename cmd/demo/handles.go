package main

// handles.go owns what the person at "Your turn" breaks things with: a small HTTP server on
// loopback that switches how a worker's model server answers, what its capacity report
// says, and whether its API server runs. The troubleshooting page's scenarios (a cluster
// answering 503, a capacity cap, a member the control plane cannot read) need exactly
// these, and the stand-ins live inside the demo's process, out of reach of any shell.

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ome-routing/operator/internal/modelserver"
)

// answerModes are the ways a model server can be made to answer, by the word a handle takes.
var answerModes = map[string]modelserver.Mode{
	"200": modelserver.Serve, "503": modelserver.Unavailable, "404": modelserver.NotFound, "502": modelserver.BadGateway,
	"hang": modelserver.Hang, "refuse": modelserver.Refuse,
}

// handleBodyLimit bounds what a handle reads: every valid body is a short word.
const handleBodyLimit = 64

// handles serves the knobs. It keeps what it last set, so that GET / tells the reader the
// state they made.
type handles struct {
	d      *Demo
	addr   string
	server *http.Server

	mu    sync.Mutex
	state map[string]*workerState
	gw    gatewayState
}

// workerState is what the handles last set for one worker.
type workerState struct {
	answer, servable, traffic string
	stopped                   bool
}

func (s *workerState) String() string {
	apiserver := "running"
	if s.stopped {
		apiserver = "stopped"
	}
	return fmt.Sprintf("answer=%s traffic=%s servable=%s apiserver=%s", s.answer, s.traffic, s.servable, apiserver)
}

// startHandles serves the knobs on a free loopback port.
func (d *Demo) startHandles() (*handles, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the demo's handles: %w", err)
	}
	h := &handles{d: d, addr: l.Addr().String(), state: map[string]*workerState{}}
	for _, w := range workers {
		h.state[w] = &workerState{answer: "200", traffic: "200", servable: "1"}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.show)
	mux.HandleFunc("PUT /{worker}/answer", h.setAnswer)
	mux.HandleFunc("PUT /{worker}/servable", h.setServable)
	mux.HandleFunc("PUT /{worker}/apiserver", h.setAPIServer)
	mux.HandleFunc("PUT /{worker}/traffic", h.setTraffic)
	mux.HandleFunc("PUT /gateway/controller", h.setController)
	mux.HandleFunc("PUT /gateway/load", h.setLoad)
	h.server = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = h.server.Serve(l) }()
	d.onClose("the demo's handles", func() error {
		err := h.server.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		h.stopLoad()
		return err
	})
	return h, nil
}

// URL is where the handles are served.
func (h *handles) URL() string { return "http://" + h.addr }

func (h *handles) show(w http.ResponseWriter, _ *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	for _, name := range workers {
		fmt.Fprintf(w, "%s %s\n", name, h.state[name])
	}
	fmt.Fprintf(w, "gateway %s\n", &h.gw)
}

// word reads the request's body, a single word, and the worker it names.
func (h *handles) word(w http.ResponseWriter, r *http.Request) (string, string, bool) {
	worker := r.PathValue("worker")
	if !slices.Contains(workers, worker) {
		http.Error(w, fmt.Sprintf("no worker %q: the demo has %s", worker, strings.Join(workers, " and ")), http.StatusNotFound)
		return "", "", false
	}
	word, ok := readWord(w, r)
	return worker, word, ok
}

// readWord reads the request's body, a single word.
func readWord(w http.ResponseWriter, r *http.Request) (string, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, handleBodyLimit+1))
	if err != nil || len(body) > handleBodyLimit {
		http.Error(w, "the body is one short word", http.StatusBadRequest)
		return "", false
	}
	return strings.TrimSpace(string(body)), true
}

// set changes the worker's state and answers with the new state.
func (h *handles) set(w http.ResponseWriter, worker string, change func(*workerState)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	change(h.state[worker])
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	// worker is one of the demo's own names (word checks it), and the state is its own words.
	fmt.Fprintf(w, "%s %s\n", worker, h.state[worker]) //nolint:gosec // plain text of known words, not HTML
}

func (h *handles) setAnswer(w http.ResponseWriter, r *http.Request) {
	worker, word, ok := h.word(w, r)
	if !ok {
		return
	}
	mode, ok := answerModes[word]
	if !ok {
		http.Error(w, fmt.Sprintf("answer %q: want one of 200, 503, 404, 502, hang, refuse", word), http.StatusBadRequest)
		return
	}
	if err := h.d.servers.Set(worker, mode); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.set(w, worker, func(s *workerState) { s.answer = word })
}

func (h *handles) setServable(w http.ResponseWriter, r *http.Request) {
	worker, word, ok := h.word(w, r)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(word, 10, 32)
	if err != nil || n < 0 {
		http.Error(w, fmt.Sprintf("servable %q: want a whole number, 0 or more", word), http.StatusBadRequest)
		return
	}
	h.d.servers.Endpoints[worker].SetServable(int32(n))
	h.set(w, worker, func(s *workerState) { s.servable = word })
}

func (h *handles) setAPIServer(w http.ResponseWriter, r *http.Request) {
	worker, word, ok := h.word(w, r)
	if !ok {
		return
	}
	h.mu.Lock()
	stopped := h.state[worker].stopped
	h.mu.Unlock()
	c := h.d.fleet.Workers[worker]
	var err error
	switch {
	case word == "stop" && !stopped:
		err = c.StopAPIServer()
	case word == "start" && stopped:
		err = c.StartAPIServer()
	case word != "stop" && word != "start":
		http.Error(w, fmt.Sprintf("apiserver %q: want stop or start", word), http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.set(w, worker, func(s *workerState) { s.stopped = word == "stop" })
}

// printHandles tells the person at "Your turn" what to look at and what to break, with
// commands that work from the repository's top folder as printed.
func (d *Demo) printHandles(kubectl string) {
	k := fmt.Sprintf("%s --kubeconfig %s", rel(kubectl), rel(d.kubectl.KubeConfig))
	d.out.Command(k + " get trafficmap -A -o wide")
	// kubectl takes no flag before a plugin's name: the plugin reads KUBECONFIG.
	plugin := fmt.Sprintf("KUBECONFIG=%s PATH=%s:$PATH %s ome", rel(d.kubectl.KubeConfig), rel(filepath.Dir(d.cfg.Plugin)), rel(kubectl))
	d.out.Command(fmt.Sprintf("%s placement endpoint %s", plugin, serviceName))
	// The members as the control plane sees them: a stopped API server shows here.
	d.out.Command(plugin + " cluster status")
	d.out.Say("Each worker has a kubeconfig of its own, its context named after it:")
	d.out.Command(fmt.Sprintf("%s --kubeconfig %s get inferenceservices -A", rel(kubectl), rel(d.workerKubeConfig(workers[1]))))
	if d.handles != nil {
		b := d.handles.URL() + "/" + workers[1]
		d.out.Say("Break worker-b and watch the map (GET %s/ shows what you set):", d.handles.URL())
		d.out.Command(fmt.Sprintf("curl -X PUT %s/answer -d 503        # or 200, 404, 502, hang, refuse", b))
		d.out.Command(fmt.Sprintf("curl -X PUT %s/servable -d 0        # its capacity report", b))
		d.out.Command(fmt.Sprintf("curl -X PUT %s/apiserver -d stop    # or start: the control plane cannot read it", b))
	}
	if d.handles != nil && d.gateway != nil {
		g := d.handles.URL() + "/gateway"
		b := d.handles.URL() + "/" + workers[1]
		d.out.Say("The gateway's questions. A passive gate: worker-b fails real requests while its probe")
		d.out.Say("passes, under a probe with a passive gate and a steady stream of real requests:")
		passive := d.path("isvc-passive.yaml")
		if err := os.WriteFile(passive, []byte(isvcPassiveManifest(d.cfg.Timing)), 0o644); err != nil {
			d.out.Say("(%s could not be written: %v)", rel(passive), err)
		}
		d.out.Command(fmt.Sprintf("%s apply -f %s", k, rel(passive)))
		d.out.Command(fmt.Sprintf("curl -X PUT %s/load -d 20             # real requests a second; 0 stops them", g))
		d.out.Command(fmt.Sprintf("curl -X PUT %s/traffic -d 503         # or 503/3: every third; 200 stops it", b))
		d.out.Say("A lost update: stop HAProxy Ingress's controller, then gate worker-b; haproxy keeps")
		d.out.Say("its old configuration and sends worker-b requests (TrafficApplied says StillServed):")
		d.out.Command(fmt.Sprintf("curl -X PUT %s/controller -d stop     # start resumes it", g))
		d.out.Command(fmt.Sprintf("curl -X PUT %s/answer -d 503", b))
	}
	if d.gatewayAddr != "" {
		d.out.Say("Send a request through haproxy; the %s header names the model server that answered, and", modelserver.ServedByHeader)
		d.out.Say("%s marks it a real request (the traffic handle fails only those):", modelserver.TrafficHeader)
		d.out.Command(fmt.Sprintf("curl -si -H 'Host: %s' -H '%s: 1' http://%s%s", d.globalHost, modelserver.TrafficHeader, d.gatewayAddr, modelserver.ProbePath))
	}
	if d.metricsAddr != "" {
		d.out.Say("The manager's metrics:")
		d.out.Command(fmt.Sprintf("curl -s http://%s/metrics | grep '^ome_'", d.metricsAddr))
	}
	d.out.Say("The manager's log is %s.", rel(d.path("manager.log")))
}
