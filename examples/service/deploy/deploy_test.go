// Package deploy checks examples/service's Kubernetes manifest offline:
// every document decodes strictly into k8s.io/api's types (an unknown or
// misspelt field fails), the pod passes Pod Security "restricted", and the
// figures a rollout depends on agree with each other. It is a module of
// its own (k8s.io/api asks for a newer Go than the published modules), run
// by CI with GOWORK=off.
package deploy

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// manifest is deployment.yaml's documents, decoded strictly.
type manifest struct {
	deploy  *appsv1.Deployment
	service *corev1.Service
	pdb     *policyv1.PodDisruptionBudget
}

func load(t *testing.T) manifest {
	t.Helper()
	b, err := os.ReadFile("deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	for i, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(b), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		var into any
		switch head.Kind {
		case "Deployment":
			m.deploy = &appsv1.Deployment{}
			into = m.deploy
		case "Service":
			m.service = &corev1.Service{}
			into = m.service
		case "PodDisruptionBudget":
			m.pdb = &policyv1.PodDisruptionBudget{}
			into = m.pdb
		default:
			t.Fatalf("document %d: unexpected kind %q", i, head.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("document %d (%s) does not decode strictly: %v", i, head.Kind, err)
		}
	}
	if m.deploy == nil || m.service == nil || m.pdb == nil {
		t.Fatalf("want a Deployment, a Service and a PodDisruptionBudget; got %+v", m)
	}
	return m
}

func stripComments(doc string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// The pod passes Pod Security "restricted": non-root, no privilege
// escalation, every capability dropped, seccomp RuntimeDefault; and a
// read-only root file system.
func TestRestricted(t *testing.T) {
	m := load(t)
	pod := m.deploy.Spec.Template.Spec
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and seccomp RuntimeDefault", psc)
	}
	if psc != nil && psc.RunAsUser != nil && *psc.RunAsUser == 0 {
		t.Error("runAsUser 0")
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Errorf("container %s: no securityContext", c.Name)
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name)
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Errorf("container %s: the root file system is writable", c.Name)
		case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0:
			t.Errorf("container %s: capabilities %+v, want drop ALL and none added", c.Name, sc.Capabilities)
		case sc.Privileged != nil && *sc.Privileged:
			t.Errorf("container %s: privileged", c.Name)
		}
		if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil && *c.SecurityContext.RunAsUser == 0 {
			t.Errorf("container %s: runAsUser 0", c.Name)
		}
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		t.Error("the pod shares a host namespace")
	}
}

// What an operator checks before a rollout: a pinned image, GOMEMLIMIT
// below the memory limit, the three probes, a disruption budget for the
// pods, metrics on a port the Service does not expose, and a grace period
// longer than the service's own drain plus shutdown timeout.
func TestOperatorChecks(t *testing.T) {
	m := load(t)
	pod := m.deploy.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if tag := c.Image[strings.LastIndex(c.Image, ":")+1:]; !strings.Contains(c.Image, "@sha256:") && (!strings.Contains(c.Image, ":") || tag == "latest") {
		t.Errorf("image %q: want a pinned tag or digest", c.Image)
	}
	limit := c.Resources.Limits.Memory()
	var gomem string
	for _, e := range c.Env {
		if e.Name == "GOMEMLIMIT" {
			gomem = e.Value
		}
	}
	if mib, ok := strings.CutSuffix(gomem, "MiB"); !ok || limit.IsZero() {
		t.Errorf("GOMEMLIMIT %q with limits.memory %v: want it in MiB under a memory limit", gomem, limit)
	} else if v := atoi(t, mib) << 20; v >= limit.Value() || v < limit.Value()*8/10 {
		t.Errorf("GOMEMLIMIT %s is not 80–100%% of limits.memory %v", gomem, limit)
	}
	if c.StartupProbe == nil || c.ReadinessProbe == nil || c.LivenessProbe == nil {
		t.Error("want startup, readiness and liveness probes")
	}
	if m.pdb.Spec.MinAvailable == nil && m.pdb.Spec.MaxUnavailable == nil {
		t.Error("the PodDisruptionBudget bounds nothing")
	}
	if !equalLabels(m.pdb.Spec.Selector.MatchLabels, m.deploy.Spec.Template.Labels) || !equalLabels(m.service.Spec.Selector, m.deploy.Spec.Template.Labels) {
		t.Error("the PodDisruptionBudget's or the Service's selector does not match the pods")
	}
	args := strings.Join(c.Args, " ")
	admin := flagValue(args, "-admin-addr")
	if admin == "" {
		t.Fatal("no -admin-addr: /metrics shares the public port")
	}
	for _, p := range m.service.Spec.Ports {
		if p.TargetPort.String() == "admin" || p.TargetPort.String() == strings.TrimPrefix(admin, ":") {
			t.Errorf("the Service exposes the admin port (%v)", p.TargetPort.String())
		}
	}
	drain, grace := duration(t, flagValue(args, "-drain")), duration(t, flagValue(args, "-shutdown-timeout"))
	period := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	if drain < 10*time.Second {
		t.Errorf("-drain %v: endpoint removal takes seconds to reach every load balancer; want at least 10 s", drain)
	}
	if period < drain+grace+5*time.Second {
		t.Errorf("terminationGracePeriodSeconds %v: want at least -drain %v + -shutdown-timeout %v + 5 s", period, drain, grace)
	}
}

func flagValue(args, name string) string {
	f := strings.Fields(args)
	for i := range len(f) - 1 {
		if f[i] == name {
			return f[i+1]
		}
	}
	return ""
}

func duration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	return d
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	var v int64
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("%q is not a number", s)
		}
		v = 10*v + int64(r-'0')
	}
	return v
}

func equalLabels(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) > 0
}
