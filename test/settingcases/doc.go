// Package settingcases is the table of installation settings (the JSON the chart renders
// from ome.multicluster.config) on which the chart and the manager must agree: the
// manager's loader (pkg/config) gives each case's verdict, and the chart (its schema and
// templates/_validate.tpl) refuses exactly the cases the manager refuses, so that helm
// never renders settings that crash-loop the new pod, nor refuses settings that would run.
// Both sides have a test that runs every case. The probe's own rules have their table in
// test/probecases, which the chart runs too.
package settingcases
