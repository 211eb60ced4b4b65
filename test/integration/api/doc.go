// Package api checks the project's API against a real API server: the CEL and OpenAPI
// rules of the CRDs on create and update, the kubectl commands and manifests of the user
// guide, and reading service copies that another OME version wrote.
package api
