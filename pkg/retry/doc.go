// Package retry holds the rules of a retry and timeouts setting on the global route: it
// checks one by the same rules the API server's CEL applies, with the same words, so that
// a setting stored under an older schema, or the installation's (which no API server
// checks), is refused the same way; and it resolves a service's blocks against the
// installation's into the Policy the publisher writes. It does no I/O.
package retry
