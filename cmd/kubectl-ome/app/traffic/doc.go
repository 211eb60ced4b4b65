// Package traffic is `kubectl ome traffic drain` and `traffic undrain`: they add or remove
// one override in a source InferenceService's ome.io/traffic-drain annotation. Both run the
// same guarded sequence: check the flags, read the service and refuse what is unsafe,
// preview on stderr, ask for confirmation, send a JSON patch that first tests the UID and
// resourceVersion the preview showed, then print the result. Nothing is retried: a service
// that changed after the preview makes the patch fail with exit code 3.
package traffic
