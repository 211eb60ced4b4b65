package framework

import (
	"context"
	"maps"
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
)

// RoutedService is a source InferenceService on a fleet's control plane and the model
// server each of its homes' copies reports, by cluster. The routing and publisher suites
// build their services with it, each through a fixture of its own.
type RoutedService struct {
	Key       client.ObjectKey
	Endpoints map[string]*modelserver.Endpoint
}

// Home is one cluster a RoutedService is placed on: the API server its copy is on and the
// replicas the copy reports.
type Home struct {
	On               client.Client
	Allocated, Ready int32
	// Host, when set, is the host name the copy reports in its URL, with the model server's
	// port; otherwise the copy reports the model server's own loopback address.
	Host string
}

// StartRoutedService starts a model server for each home, places the home's copy with the
// status a member's controllers would report, and creates on the control plane cp the
// source service placed on the homes, with the routing settings and annotations given. An
// empty key.Namespace gets a namespace of its own, named after the service. On an error it
// closes the model servers it started; otherwise closing them is the caller's.
func StartRoutedService(ctx context.Context, cp client.Client, key client.ObjectKey, homes map[string]Home,
	routing *omev1beta1.Routing, annotations map[string]string) (_ *RoutedService, err error) {
	if key.Namespace == "" {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: key.Name + "-"}}
		if err := cp.Create(ctx, ns); err != nil {
			return nil, err
		}
		key.Namespace = ns.Name
	}
	s := &RoutedService{Key: key, Endpoints: map[string]*modelserver.Endpoint{}}
	defer func() {
		if err != nil {
			for _, ep := range s.Endpoints {
				ep.Close()
			}
		}
	}()
	clusters := slices.Sorted(maps.Keys(homes))
	for _, c := range clusters {
		ep, err := modelserver.StartEndpoint(nil)
		if err != nil {
			return nil, err
		}
		s.Endpoints[c] = ep
		h := homes[c]
		url := ep.URL()
		if h.Host != "" {
			_, port, err := net.SplitHostPort(url[len("http://"):])
			if err != nil {
				return nil, err
			}
			url = "http://" + net.JoinHostPort(h.Host, port)
		}
		if err := envfleet.PlaceCopy(ctx, h.On, key, url, h.Allocated, h.Ready); err != nil {
			return nil, err
		}
	}
	isvc := envfleet.SourceService(key, clusters, routing)
	isvc.Annotations = annotations
	if err := cp.Create(ctx, isvc); err != nil {
		return nil, err
	}
	return s, nil
}
