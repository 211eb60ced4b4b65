package app

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/ome-routing/operator/cmd/kubectl-ome/app/util"
	"github.com/ome-routing/operator/pkg/version"
)

var errVersionOutput = errors.New("output must be table, json or yaml")

// newVersionCommand is `kubectl ome version`: the plugin's build, as --version prints it,
// or as JSON or YAML.
func newVersionCommand(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version, revision and Go version",
		Example: `  # The version, one line
  kubectl ome version

  # For a script
  kubectl ome version -o json`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			info := version.Get()
			var out []byte
			var err error
			switch output {
			case util.OutputTable:
				_, err = fmt.Fprintln(streams.Out, "kubectl-ome", info)
				return err
			case util.OutputJSON:
				out, err = json.MarshalIndent(info, "", "  ")
				out = append(out, '\n')
			case util.OutputYAML:
				out, err = yaml.Marshal(info)
			default:
				return errVersionOutput
			}
			if err != nil {
				return err
			}
			_, err = streams.Out.Write(out)
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", util.OutputTable, "Output: table, json or yaml")
	util.CompleteFlagValues(cmd, "output", util.OutputTable, util.OutputJSON, util.OutputYAML)
	return cmd
}
