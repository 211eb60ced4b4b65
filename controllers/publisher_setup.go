package controllers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// setupPublisher registers the publisher when the control plane serves Gateway API
// HTTPRoutes. Without them there is nothing to publish into, and a watch on them would
// keep the manager from starting, so the maps are simply not published.
func setupPublisher(mgr ctrl.Manager, opts Options) error {
	log := ctrl.Log.WithName("setup")
	route := schema.GroupKind{Group: gatewayv1.GroupName, Kind: "HTTPRoute"}
	if _, err := mgr.GetRESTMapper().RESTMapping(route, gatewayv1.GroupVersion.Version); err != nil {
		if meta.IsNoMatchError(err) {
			log.Info("Gateway API HTTPRoutes are not served here; TrafficMaps are not published")
			return nil
		}
		return fmt.Errorf("look up Gateway API HTTPRoutes: %w", err)
	}
	log.Info("Setting up the TrafficMap publisher", "publisher", "gatewayapi", "globalGateway", opts.Endpoint.GlobalGateway,
		"backendKind", opts.Endpoint.Backend(), "resyncInterval", opts.Publisher.Resync().String())
	return (&PublisherReconciler{
		Client:    mgr.GetClient(),
		Reader:    mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("ome-publisher"),
		Active:    opts.RoutingEnabled,
		Endpoint:  opts.Endpoint,
		Publisher: opts.Publisher,
	}).SetupWithManager(mgr)
}
