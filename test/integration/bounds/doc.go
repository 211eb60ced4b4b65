// Package bounds checks that every value the manager computes from what it reads fits the
// schema it writes into, by construction: the API server refuses a whole object for one
// field out of range, so one broken reading (a traffic-signal count past 2^63, a count of
// gates in a row past the CRD's maximum) would freeze every other cluster's gates, drains
// and weights of that service.
//
// The suite reads the generated CRDs (config/crd/bases), takes the bound of every field
// under the parts the manager writes (minimum, maximum, minLength, maxLength, minItems,
// maxItems, enum, pattern), and holds a table from each such field to the input that feeds
// it. A field the schema bounds and the table does not name fails the suite, so a new bound
// needs a case. Each case drives the pure functions that compute the value (pkg/*) with
// extreme inputs, real sockets where the input comes over one (a Prometheus answer from a
// loopback HTTP server), and writes the result through a real API server (envtest): no
// write may be refused, and each field the table names must be present in what was
// written, so that a case cannot pass by leaving its field out.
package bounds
