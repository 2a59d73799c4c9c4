package k8smeta

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPIServer answers what the k8s_attributes processor's client-go asks of a Kubernetes API
// server, on loopback over plain HTTP: pods listed and watched (the list, a watch from a
// resourceVersion, and client-go's WatchList: sendInitialEvents=true, the pods as ADDED
// events, then a BOOKMARK annotated k8s.io/initial-events-end), and discovery. It enforces
// the component's ClusterRole: a resource or verb the role does not grant is refused (403)
// and fails the test; so does a pod request without the node's fieldSelector.
type fakeAPIServer struct {
	t     *testing.T
	srv   *httptest.Server
	node  string
	delay time.Duration // before every answer
	rules []policyRule  // the ClusterRole's

	mu     sync.Mutex
	rv     int                   // the last resourceVersion given out
	pods   map[string]fakeObject // by namespace/name
	events []watchEvent          // every change since the start, in order
	notify chan struct{}         // closed and replaced when events grows
	asked  []string              // "verb resource" of every request
	urls   []string              // and its URL
}

// fakeObject is a Kubernetes object as JSON, with its resourceVersion.
type fakeObject map[string]any

type watchEvent struct {
	rv     int
	typ    string
	object fakeObject
}

type policyRule struct {
	APIGroups []string `yaml:"apiGroups"`
	Resources []string `yaml:"resources"`
	Verbs     []string `yaml:"verbs"`
}

func newFakeAPIServer(t *testing.T, node string, delay time.Duration, rules []policyRule) *fakeAPIServer {
	t.Helper()
	a := &fakeAPIServer{t: t, node: node, delay: delay, rules: rules, rv: 100, pods: map[string]fakeObject{}, notify: make(chan struct{})}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	// Watches end when their client goes; Close waits for them, so the collector stops first
	// (its Cleanup was registered later, so it runs earlier).
	t.Cleanup(a.srv.Close)
	return a
}

// addPod stores a pod and tells the watches (an ADDED event).
func (a *fakeAPIServer) addPod(pod fakeObject) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rv++
	meta := pod["metadata"].(map[string]any)
	meta["resourceVersion"] = strconv.Itoa(a.rv)
	a.pods[fmt.Sprint(meta["namespace"], "/", meta["name"])] = pod
	a.events = append(a.events, watchEvent{a.rv, "ADDED", pod})
	close(a.notify)
	a.notify = make(chan struct{})
}

// requests returns the "verb resource" of every request so far, and their URLs.
func (a *fakeAPIServer) requests() (asked, urls []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked), slices.Clone(a.urls)
}

func (a *fakeAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	select {
	case <-time.After(a.delay):
	case <-r.Context().Done():
		return
	}
	q := r.URL.Query()
	switch r.URL.Path {
	case "/version":
		writeJSON(w, http.StatusOK, map[string]any{"major": "1", "minor": "37", "gitVersion": "v1.37.2"})
		return
	case "/api":
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
		return
	case "/apis":
		writeJSON(w, http.StatusOK, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{}})
		return
	}
	group, resource, verb := requestAttributes(r)
	a.mu.Lock()
	a.asked = append(a.asked, verb+" "+resource)
	a.urls = append(a.urls, r.URL.String())
	a.mu.Unlock()
	if !a.allowed(group, resource, verb) {
		a.t.Errorf("the collector asked to %s %s (group %q): the component's ClusterRole does not allow it (%s)", verb, resource, group, r.URL)
		writeStatus(w, http.StatusForbidden, "Forbidden", fmt.Sprintf("%s %s is forbidden", verb, resource))
		return
	}
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/pods" {
		a.t.Errorf("the collector asked %s %s: the fake API server answers only pods of all namespaces", r.Method, r.URL)
		writeStatus(w, http.StatusNotFound, "NotFound", "not served by the fake API server")
		return
	}
	if got, want := q.Get("fieldSelector"), "spec.nodeName="+a.node; got != want {
		a.t.Errorf("pods asked with fieldSelector %q, want %q (each agent watches its node's pods)", got, want)
	}
	if verb == "watch" {
		a.watch(w, r)
		return
	}
	a.mu.Lock()
	items := a.nodePods()
	list := map[string]any{"kind": "PodList", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": strconv.Itoa(a.rv)}, "items": items}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// requestAttributes are the API group, resource and verb of a resource request, as the API
// server's authorizer sees them.
func requestAttributes(r *http.Request) (group, resource, verb string) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, parts = parts[1], parts[3:]
	default:
		return "", r.URL.Path, strings.ToLower(r.Method)
	}
	named := false
	if len(parts) >= 2 && parts[0] == "namespaces" {
		parts = parts[2:]
		if len(parts) == 0 {
			return group, "namespaces", "get"
		}
	}
	resource = parts[0]
	named = len(parts) > 1
	switch {
	case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
		verb = "watch"
	case named:
		verb = "get"
	default:
		verb = "list"
	}
	return group, resource, verb
}

func (a *fakeAPIServer) allowed(group, resource, verb string) bool {
	for _, rule := range a.rules {
		if slices.Contains(rule.APIGroups, group) && slices.Contains(rule.Resources, resource) && slices.Contains(rule.Verbs, verb) {
			return true
		}
	}
	return false
}

// nodePods are the stored pods on the server's node, with a.mu held.
func (a *fakeAPIServer) nodePods() []fakeObject {
	var items []fakeObject
	for _, p := range a.pods {
		if spec, _ := p["spec"].(map[string]any); spec["nodeName"] == a.node {
			items = append(items, p)
		}
	}
	return items
}

// watch streams events: with sendInitialEvents=true the node's pods as ADDED events and then
// the bookmark that ends them (client-go's WatchList), else the changes after the request's
// resourceVersion; then every later change, until the client goes.
func (a *fakeAPIServer) watch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	flusher := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(typ string, obj any) bool {
		if err := enc.Encode(map[string]any{"type": typ, "object": obj}); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}

	a.mu.Lock()
	next := len(a.events)
	var initial []fakeObject
	rv := a.rv
	if q.Get("sendInitialEvents") == "true" {
		initial = a.nodePods()
	} else if from, err := strconv.Atoi(q.Get("resourceVersion")); err == nil {
		next = slices.IndexFunc(a.events, func(e watchEvent) bool { return e.rv > from })
		if next < 0 {
			next = len(a.events)
		}
	}
	a.mu.Unlock()

	if q.Get("sendInitialEvents") == "true" {
		for _, p := range initial {
			if !send("ADDED", p) {
				return
			}
		}
		bookmark := map[string]any{"kind": "Pod", "apiVersion": "v1", "metadata": map[string]any{
			"resourceVersion": strconv.Itoa(rv), "annotations": map[string]any{"k8s.io/initial-events-end": "true"}}}
		if !send("BOOKMARK", bookmark) {
			return
		}
	}
	for {
		a.mu.Lock()
		pending := slices.Clone(a.events[next:])
		next = len(a.events)
		notify := a.notify
		a.mu.Unlock()
		for _, e := range pending {
			if spec, _ := e.object["spec"].(map[string]any); spec["nodeName"] != a.node {
				continue
			}
			if !send(e.typ, e.object) {
				return
			}
		}
		select {
		case <-notify:
		case <-r.Context().Done():
			return
		}
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "message": message, "code": code})
}
