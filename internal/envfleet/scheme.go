package envfleet

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Scheme knows the built-in kinds, this project's kinds, Gateway API's and ClusterProfiles.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(Scheme))
	utilruntime.Must(omev1beta1.AddToScheme(Scheme))
	utilruntime.Must(gatewayv1.Install(Scheme))
	utilruntime.Must(v1alpha1.AddToScheme(Scheme))
}
