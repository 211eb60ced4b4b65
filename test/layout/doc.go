// Package layout checks the import rules of docs/development/layout.md that the compiler
// does not: the binaries under cmd/ never depend on test code.
package layout
