package samples

import (
	_ "embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

//go:embed trafficsignal/haproxy-values.yaml
var haproxySignalValues []byte

//go:embed trafficsignal/vllm-load-values.yaml
var vllmLoadValues []byte

// HAProxySignalValuesPath is where the shipped HAProxy traffic-signal queries live, from
// the repository's root.
const HAProxySignalValuesPath = "config/samples/trafficsignal/haproxy-values.yaml"

// VLLMLoadValuesPath is where the shipped vLLM load queries live, from the repository's
// root.
const VLLMLoadValuesPath = "config/samples/trafficsignal/vllm-load-values.yaml"

// signalQueries are the queries of a traffic-signal values file.
type signalQueries struct {
	Requests, Failures, Waiting string
	CacheUse                    string `json:"cacheUse"`
}

func readSignalQueries(data []byte, path string) (signalQueries, error) {
	var v struct {
		Ome struct {
			Multicluster struct {
				Config struct {
					Routing struct {
						TrafficSignal struct {
							Queries signalQueries
						} `json:"trafficSignal"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &v); err != nil {
		return signalQueries{}, fmt.Errorf("%s: %w", path, err)
	}
	return v.Ome.Multicluster.Config.Routing.TrafficSignal.Queries, nil
}

// HAProxySignalQueries are the requests and failures templates of the shipped HAProxy
// traffic-signal values file, which the demo and the data-plane suite run the manager
// with: the queries a user installs are the ones they prove.
func HAProxySignalQueries() (requests, failures string, err error) {
	q, err := readSignalQueries(haproxySignalValues, HAProxySignalValuesPath)
	if err != nil {
		return "", "", err
	}
	if q.Requests == "" || q.Failures == "" {
		return "", "", fmt.Errorf("%s holds no requests and failures queries", HAProxySignalValuesPath)
	}
	return q.Requests, q.Failures, nil
}

// VLLMLoadQueries are the waiting and cacheUse templates of the shipped vLLM load values
// file, which the load suite and bench run the manager with.
func VLLMLoadQueries() (waiting, cacheUse string, err error) {
	q, err := readSignalQueries(vllmLoadValues, VLLMLoadValuesPath)
	if err != nil {
		return "", "", err
	}
	if q.Waiting == "" || q.CacheUse == "" {
		return "", "", fmt.Errorf("%s holds no waiting and cacheUse queries", VLLMLoadValuesPath)
	}
	return q.Waiting, q.CacheUse, nil
}
