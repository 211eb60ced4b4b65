package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/poll"
)

// schemaSwapTimeout bounds how long the API server may take to serve a changed CRD schema:
// a guard, not a timing claim.
const schemaSwapTimeout = 30 * time.Second

// CreateUnvalidated stores obj although the CRD's schema would refuse it, as the API server
// keeps an object that an older schema admitted (the previous release's, or one installed
// by hand) after the CRD is upgraded: it serves the CRD with a schema that admits anything,
// creates obj, and serves the CRD's own schema again. It returns once the API server
// validates with the own schema again (a dry run of an object only the open schema admits
// is refused), so that nothing else is admitted without it. The suite must not write the
// CRD's kind concurrently.
func CreateUnvalidated(ctx context.Context, c client.Client, crdName string, obj client.Object) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: crdName}, crd); err != nil {
		return err
	}
	own := crd.DeepCopy()
	open := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", XPreserveUnknownFields: ptr.To(true),
	}}
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Schema = open
		crd.Spec.Versions[i].SelectableFields = nil
	}
	if err := c.Update(ctx, crd); err != nil {
		return fmt.Errorf("open the schema of %s: %w", crdName, err)
	}
	created := obj.DeepCopyObject().(client.Object)
	createErr := poll.Until(ctx, 100*time.Millisecond, schemaSwapTimeout, func(ctx context.Context) error {
		created = obj.DeepCopyObject().(client.Object)
		return retryOnly(c.Create(ctx, created), apierrors.IsInvalid)
	})
	if err := restoreSchema(ctx, c, own); err != nil {
		return err
	}
	if createErr != nil {
		return fmt.Errorf("create %s under an open schema: %w", client.ObjectKeyFromObject(obj), createErr)
	}
	// Only the open schema admits a spec that is not an object.
	gvk, err := c.GroupVersionKindFor(obj)
	if err != nil {
		return err
	}
	check := &unstructured.Unstructured{Object: map[string]any{"spec": "not an object"}}
	check.SetGroupVersionKind(gvk)
	check.SetNamespace(obj.GetNamespace())
	check.SetName(obj.GetName() + "-schema-check")
	err = poll.Until(ctx, 100*time.Millisecond, schemaSwapTimeout, func(ctx context.Context) error {
		err := c.Create(ctx, check.DeepCopy(), client.DryRunAll)
		if err == nil {
			return errors.New("a spec that is not an object is still admitted")
		}
		if apierrors.IsInvalid(err) {
			return nil
		}
		return poll.Final(err)
	})
	if err != nil {
		return fmt.Errorf("wait for %s to be served with its own schema again: %w", crdName, err)
	}
	obj.SetResourceVersion(created.GetResourceVersion())
	obj.SetUID(created.GetUID())
	return nil
}

// restoreSchema serves the CRD's own versions again.
func restoreSchema(ctx context.Context, c client.Client, own *apiextensionsv1.CustomResourceDefinition) error {
	return poll.Until(ctx, 100*time.Millisecond, schemaSwapTimeout, func(ctx context.Context) error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: own.Name}, crd); err != nil {
			return poll.Final(err)
		}
		crd.Spec.Versions = own.Spec.Versions
		return retryOnly(c.Update(ctx, crd), apierrors.IsConflict)
	})
}

// retryOnly is err for poll.Until: nil stays nil, an error retry says another try may
// clear (the schema not swapped yet, a conflicting write) is tried again, any other is final.
func retryOnly(err error, retry func(error) bool) error {
	if err == nil || retry(err) {
		return err
	}
	return poll.Final(err)
}

// HostileCapacityFactors are the factors of issue 32 that the API server once admitted:
// resource.ParseQuantity refuses the first and does not return on the second, so a manager
// that decoded them as Quantities could list no InferenceService at all.
var HostileCapacityFactors = map[string]any{"worker-a": "1e1.5", "worker-b": "1e999999999999"}

// WithCapacityFactors is isvc as an unstructured object whose spec.routing.capacityFactors
// is factors: JSON that does not depend on what the Go type can hold.
func WithCapacityFactors(isvc *omev1beta1.InferenceService, factors map[string]any) (*unstructured.Unstructured, error) {
	isvc.SetGroupVersionKind(omev1beta1.GroupVersion.WithKind("InferenceService"))
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(isvc)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	return u, unstructured.SetNestedField(u.Object, factors, "spec", "routing", "capacityFactors")
}
