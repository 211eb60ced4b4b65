package promserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/common/model"
)

var httpClient = &http.Client{Timeout: 5 * time.Second}

// apiResponse is the envelope of every /api/v1 answer.
type apiResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

func (s *Server) get(ctx context.Context, path string, query url.Values, into any) error {
	u := s.URL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var r apiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("GET %s: %s: %w", path, resp.Status, err)
	}
	if r.Status != "success" {
		return fmt.Errorf("GET %s: %s: %s: %s", path, resp.Status, r.ErrorType, r.Error)
	}
	return json.Unmarshal(r.Data, into)
}

// Query runs an instant query now and returns its vector (a scalar comes back as one
// sample without labels). A range vector or a string is an error.
func (s *Server) Query(ctx context.Context, promql string) (model.Vector, error) {
	var data struct {
		ResultType model.ValueType `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := s.get(ctx, "/api/v1/query", url.Values{"query": {promql}}, &data); err != nil {
		return nil, err
	}
	switch data.ResultType {
	case model.ValVector:
		var v model.Vector
		err := json.Unmarshal(data.Result, &v)
		return v, err
	case model.ValScalar:
		var sc model.Scalar
		if err := json.Unmarshal(data.Result, &sc); err != nil {
			return nil, err
		}
		return model.Vector{{Metric: model.Metric{}, Value: sc.Value, Timestamp: sc.Timestamp}}, nil
	default:
		return nil, fmt.Errorf("query %q: a %s, not a vector", promql, data.ResultType)
	}
}

// target is one entry of /api/v1/targets' activeTargets.
type target struct {
	ScrapeURL  string    `json:"scrapeUrl"`
	Health     string    `json:"health"`
	LastError  string    `json:"lastError"`
	LastScrape time.Time `json:"lastScrape"`
}

func (s *Server) targets(ctx context.Context) ([]target, error) {
	var data struct {
		ActiveTargets []target `json:"activeTargets"`
	}
	err := s.get(ctx, "/api/v1/targets", url.Values{"state": {"active"}}, &data)
	return data.ActiveTargets, err
}

// Alert is one alert of /api/v1/alerts: pending while its rule's for has not passed yet,
// firing after.
type Alert struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"`
	ActiveAt time.Time         `json:"activeAt"`
	Value    string            `json:"value"`
}

// Alerts are the alerts of the server's rules that are pending or firing now.
func (s *Server) Alerts(ctx context.Context) ([]Alert, error) {
	var data struct {
		Alerts []Alert `json:"alerts"`
	}
	err := s.get(ctx, "/api/v1/alerts", nil, &data)
	return data.Alerts, err
}

// LastScrapes are the times of every target's last scrape, by scrape URL.
func (s *Server) LastScrapes(ctx context.Context) (map[string]time.Time, error) {
	ts, err := s.targets(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(ts))
	for _, t := range ts {
		out[t.ScrapeURL] = t.LastScrape
	}
	return out, nil
}

// waitReady waits until /-/ready answers 200, or the server exits.
func (s *Server) waitReady(ctx context.Context) error {
	return s.poll(ctx, "ready", func() (bool, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
		if err != nil {
			return false, err.Error()
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
}

// waitTargetsUp waits until every target's last scrape succeeded.
func (s *Server) waitTargetsUp(ctx context.Context) error {
	return s.poll(ctx, "every target up", func() (bool, string) {
		ts, err := s.targets(ctx)
		if err != nil {
			return false, err.Error()
		}
		if len(ts) != len(s.opts.Targets) {
			return false, fmt.Sprintf("%d of %d targets known", len(ts), len(s.opts.Targets))
		}
		for _, t := range ts {
			if t.Health != "up" {
				return false, fmt.Sprintf("%s is %s: %s", t.ScrapeURL, t.Health, t.LastError)
			}
		}
		return true, ""
	})
}

func (s *Server) poll(ctx context.Context, what string, cond func() (bool, string)) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := ""
	for {
		ok, why := cond()
		if ok {
			return nil
		}
		last = why
		select {
		case <-s.proc.Done():
			return fmt.Errorf("prometheus exited before it was %s (see its log): %s", what, last)
		case <-ctx.Done():
			return fmt.Errorf("prometheus was not %s: %s: %w", what, last, ctx.Err())
		case <-tick.C:
		}
	}
}
