// Package layout checks rules of docs/development/layout.md and testing.md that the compiler
// would not enforce: the binaries under cmd/ never depend on test code, every make bench-*
// target selects tests and benchmarks that exist, and every package whose tests run the
// manager's or the plugin's binary keeps it for the whole process (framework.Main).
package layout
