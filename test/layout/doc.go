// Package layout checks rules of docs/development/layout.md that the compiler would not
// enforce: the binaries under cmd/ never depend on test code, and the page's seams hold
// (every file it names exists, each walkthrough touches few files, and the backend kinds
// of the publisher, the settings and the chart agree).
package layout
