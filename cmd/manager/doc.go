// Command manager runs the routing operator on a control-plane cluster.
package main
