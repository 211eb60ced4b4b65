package framework

import (
	"github.com/ome-routing/operator/internal/egtranslate"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/traffic"
)

// The suites reach the pieces they share with the demo (cmd/demo) through this package, by
// the names they had when those pieces lived here. The pieces themselves are in internal/,
// so that no binary imports test code; each name below is the internal one, documented
// there.

// Cluster is envfleet.Cluster: one envtest API server with its etcd.
type Cluster = envfleet.Cluster

// Fleet is envfleet.Fleet: a control plane with workload clusters registered on it.
type Fleet = envfleet.Fleet

// The envtest clusters and fleets (internal/envfleet).
const (
	SecretNamespace       = envfleet.SecretNamespace
	ManagerServiceAccount = envfleet.ManagerServiceAccount
)

// The envtest clusters and fleets (internal/envfleet).
var (
	Scheme      = envfleet.Scheme
	MemberRules = envfleet.MemberRules

	StartCluster   = envfleet.StartCluster
	StartFleet     = envfleet.StartFleet
	StopAPIServers = envfleet.StopAPIServers
	RepoRoot       = envfleet.RepoRoot
	PlaceCopy      = envfleet.PlaceCopy
	SourceService  = envfleet.SourceService
)

// Mode is modelserver.Mode: how an Endpoint answers.
type Mode = modelserver.Mode

// Endpoint is modelserver.Endpoint: a loopback HTTP server standing in for a model server.
type Endpoint = modelserver.Endpoint

// Servers is modelserver.Servers: one named Endpoint per cluster, all on one port.
type Servers = modelserver.Servers

// Answer is modelserver.Answer: one request an Endpoint answered.
type Answer = modelserver.Answer

// InFlight is modelserver.InFlight: requests in flight across endpoints.
type InFlight = modelserver.InFlight

// The model servers' modes and paths (internal/modelserver).
const (
	Serve       = modelserver.Serve
	Unavailable = modelserver.Unavailable
	NotFound    = modelserver.NotFound
	BadGateway  = modelserver.BadGateway
	Redirect    = modelserver.Redirect
	Hang        = modelserver.Hang
	Refuse      = modelserver.Refuse

	ProbePath      = modelserver.ProbePath
	ReportPath     = modelserver.ReportPath
	ServedByHeader = modelserver.ServedByHeader
)

// The model servers (internal/modelserver).
var (
	StartEndpoint = modelserver.StartEndpoint
	StartServers  = modelserver.StartServers
	SplitMatches  = modelserver.SplitMatches
	IsTraffic     = modelserver.IsTraffic
)

// Traffic is traffic.Traffic: requests through a gateway to one route.
type Traffic = traffic.Traffic

// Tally is traffic.Tally: results counted by who answered and how.
type Tally = traffic.Tally

// Result is traffic.Result: what became of one request.
type Result = traffic.Result

// Load is traffic.Load: a steady stream of requests.
type Load = traffic.Load

// The traffic generator (internal/traffic).
var (
	NewTraffic = traffic.NewTraffic
	TallyOf    = traffic.TallyOf
)

// HAProxyIngress is haproxyingress.HAProxyIngress: a running controller and its haproxy.
type HAProxyIngress = haproxyingress.HAProxyIngress

// HAProxyOptions is haproxyingress.HAProxyOptions: how to start HAProxy Ingress.
type HAProxyOptions = haproxyingress.HAProxyOptions

// HAProxy Ingress and haproxy (internal/haproxyingress).
const (
	HAProxyIngressEnv   = haproxyingress.HAProxyIngressEnv
	RequireDataPlaneEnv = haproxyingress.RequireDataPlaneEnv
	HAProxyController   = haproxyingress.HAProxyController
)

// HAProxy Ingress and haproxy (internal/haproxyingress).
var (
	StartHAProxyIngress   = haproxyingress.StartHAProxyIngress
	DataPlaneMissing      = haproxyingress.DataPlaneMissing
	InstallHAProxyGateway = haproxyingress.InstallHAProxyGateway
	FreePort              = haproxyingress.FreePort
	ListeningAddrs        = haproxyingress.ListeningAddrs
)

// EnvoyView is egtranslate.EnvoyView: the weights Envoy Gateway's translator would program.
type EnvoyView = egtranslate.EnvoyView

// GatewayClassController is egtranslate.GatewayClassController: the controllerName Envoy
// Gateway's translator accepts.
const GatewayClassController = egtranslate.GatewayClassController

// Translate is egtranslate.Translate: egctl x translate on the objects, read for one route.
var Translate = egtranslate.Translate
