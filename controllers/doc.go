// Package controllers holds the reconcilers and the prober runnable: the only code that
// talks to API servers or sends probes. Each gathers its inputs, calls the pure decisions
// in pkg/*, and writes the result.
package controllers
