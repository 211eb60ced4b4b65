// Package chart tests the ome-resources Helm chart by rendering it with the helm binary that
// the Makefile builds (found through $HELM): what it installs, which values its schema
// refuses and with what message, that the manager's config loader accepts the settings it
// renders, and that its CRDs and RBAC rules are the generated ones.
package chart
