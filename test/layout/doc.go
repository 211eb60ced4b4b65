// Package layout checks rules of docs/development/layout.md and testing.md that the compiler
// would not enforce: the binaries under cmd/ never depend on test code; every make bench-*
// target selects tests and benchmarks that exist; every package whose tests run the manager's
// or the plugin's binary keeps it for the whole process (framework.Main); and the page's seams
// hold (every file it names exists, each walkthrough touches few files, and the backend kinds
// of the publisher, the settings and the chart agree).
package layout
