// Package release checks the files that ship with every release: the Apache-2.0 LICENSE
// and a CHANGELOG whose current version is the chart's appVersion.
package release
