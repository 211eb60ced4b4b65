// Package layout checks an import rule of docs/development/layout.md that the compiler
// would not enforce: the binaries under cmd/ never depend on test code.
package layout
