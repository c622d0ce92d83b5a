// Package browserless_test checks the deployment examples beside it
// (docker-compose.yml, kubernetes.yaml), which cannot run on a machine
// without Docker or a cluster, for what an operator relies on: the probes
// reach /healthz and /readyz on the --http port, the pool never times a
// runtime's connection out, every connect URL carries launch= (where the
// Company's host flags go), the pool's token comes from a secret or the
// environment and is nowhere inline, and the pool admits every runtime.
package browserless_test

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type composeFile struct {
	Services map[string]struct {
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

// envRef is a value the environment fills in: ${VAR}, ${VAR:?message},
// ${VAR:-default} (compose) or $(VAR) (Kubernetes).
var envRef = regexp.MustCompile(`^(?:\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[?-][^}]*)?\}|\$\(([A-Za-z_][A-Za-z0-9_]*)\))$`)

func TestComposeExample(t *testing.T) {
	var c composeFile
	decodeAll(t, "docker-compose.yml", func(d *yaml.Decoder) error { return d.Decode(&c) })
	pool, ok := c.Services["browserless"]
	if !ok {
		t.Fatal("docker-compose.yml has no browserless service")
	}
	poppy, ok := c.Services["poppy-browser"]
	if !ok {
		t.Fatal("docker-compose.yml has no poppy-browser service")
	}
	if m := envRef.FindStringSubmatch(pool.Environment["TOKEN"]); m == nil {
		t.Errorf("the pool's TOKEN is %q, want it from the environment (${POOL_TOKEN...})", pool.Environment["TOKEN"])
	}
	if m := envRef.FindStringSubmatch(poppy.Environment["POPPY_MCP_TOKEN"]); m == nil {
		t.Errorf("POPPY_MCP_TOKEN is %q, want it from the environment", poppy.Environment["POPPY_MCP_TOKEN"])
	}
	checkPool(t, pool.Environment, 1)
	args := flags(poppy.Command)
	port := httpPort(t, args)
	checkConnectURL(t, args["--cdp-url"], pool.Environment, func(name string) bool { return name == "POOL_TOKEN" })

	probe := strings.Join(poppy.Healthcheck.Test, " ")
	m := regexp.MustCompile(`http://(?:127\.0\.0\.1|localhost):(\d+)(/healthz|/readyz)\b`).FindStringSubmatch(probe)
	if m == nil {
		t.Fatalf("the poppy-browser healthcheck %q does not GET /healthz or /readyz on the loopback", probe)
	}
	if m[1] != port {
		t.Errorf("the healthcheck asks port %s, --http serves %s", m[1], port)
	}
}

type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Template struct {
			Spec struct {
				Containers []k8sContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name  string   `yaml:"name"`
	Args  []string `yaml:"args"`
	Env   []k8sEnv `yaml:"env"`
	Ports []struct {
		ContainerPort int    `yaml:"containerPort"`
		Name          string `yaml:"name"`
	} `yaml:"ports"`
	LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
	ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
}

type k8sEnv struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		SecretKeyRef *struct {
			Name string `yaml:"name"`
			Key  string `yaml:"key"`
		} `yaml:"secretKeyRef"`
	} `yaml:"valueFrom"`
}

type k8sProbe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"` // a number or a port's name
	} `yaml:"httpGet"`
}

func TestKubernetesExample(t *testing.T) {
	deployments := map[string]k8sObject{}
	decodeAll(t, "kubernetes.yaml", func(d *yaml.Decoder) error {
		for {
			var o k8sObject
			if err := d.Decode(&o); err != nil {
				return err
			}
			if o.Kind == "Deployment" {
				deployments[o.Metadata.Name] = o
			}
		}
	})
	pool := container(t, deployments, "browserless")
	poppyDeployment := deployments["poppy-browser"]
	poppy := container(t, deployments, "poppy-browser")

	poolEnv, poolSecrets := k8sEnvOf(pool)
	if !poolSecrets["TOKEN"] {
		t.Errorf("the pool's TOKEN does not come from a secret (valueFrom.secretKeyRef)")
	}
	checkPool(t, poolEnv, max(poppyDeployment.Spec.Replicas, 1))
	poppyEnv, poppySecrets := k8sEnvOf(poppy)
	if !poppySecrets["POPPY_MCP_TOKEN"] {
		t.Errorf("POPPY_MCP_TOKEN does not come from a secret")
	}
	args := flags(poppy.Args)
	port := httpPort(t, args)
	checkConnectURL(t, args["--cdp-url"], poolEnv, func(name string) bool { return poppySecrets[name] })
	if _, inline := poppyEnv["POOL_TOKEN"]; inline {
		t.Errorf("POOL_TOKEN has an inline value in the poppy-browser container")
	}

	for _, p := range []struct {
		name  string
		probe *k8sProbe
		path  string
	}{{"livenessProbe", poppy.LivenessProbe, "/healthz"}, {"readinessProbe", poppy.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("poppy-browser has no %s.httpGet", p.name)
			continue
		}
		if p.probe.HTTPGet.Path != p.path {
			t.Errorf("%s GETs %q, want %s", p.name, p.probe.HTTPGet.Path, p.path)
		}
		got := ""
		switch v := p.probe.HTTPGet.Port.(type) {
		case int:
			got = strconv.Itoa(v)
		case string:
			for _, cp := range poppy.Ports {
				if cp.Name == v {
					got = strconv.Itoa(cp.ContainerPort)
				}
			}
		}
		if got != port {
			t.Errorf("%s asks port %v (%q), --http serves %s", p.name, p.probe.HTTPGet.Port, got, port)
		}
	}
}

// checkPool: the pool does not log the Users' URLs, and admits as many
// connections as there are runtime processes.
func checkPool(t *testing.T, env map[string]string, runtimes int) {
	t.Helper()
	if env["DEBUG"] != "-*" {
		t.Errorf("the pool's DEBUG is %q, want \"-*\" (it logs every URL the Users' browsers request)", env["DEBUG"])
	}
	if n, err := strconv.Atoi(env["CONCURRENT"]); err != nil || n < runtimes {
		t.Errorf("the pool's CONCURRENT is %q for %d runtime process(es): one connection each", env["CONCURRENT"], runtimes)
	}
}

// checkConnectURL: the --cdp-url has the pool's token from the environment
// (fromSecret says which variables are), never inline, and launch= with
// Chromium flags; the pool never ends the connection on a timer (it would
// end every Session of that runtime): TIMEOUT=0, or a timeout= here.
func checkConnectURL(t *testing.T, raw string, poolEnv map[string]string, fromSecret func(string) bool) {
	t.Helper()
	if raw == "" {
		t.Fatal("poppy-browser has no --cdp-url")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("--cdp-url %q: %v", raw, err)
	}
	q := u.Query()
	m := envRef.FindStringSubmatch(q.Get("token"))
	if m == nil {
		t.Errorf("--cdp-url's token is %q, want a variable from a secret or the environment", q.Get("token"))
	} else if name := m[1] + m[2]; !fromSecret(name) {
		t.Errorf("--cdp-url's token comes from %s, which no secret fills", name)
	}
	if u.User != nil {
		t.Errorf("--cdp-url carries user info")
	}
	var launch struct {
		Args []string `json:"args"`
	}
	if err := json.Unmarshal([]byte(q.Get("launch")), &launch); err != nil || launch.Args == nil {
		t.Errorf("--cdp-url's launch= is %q, want {\"args\":[...]} with the Company's host flags", q.Get("launch"))
	}
	for _, a := range launch.Args {
		if !strings.HasPrefix(a, "--") {
			t.Errorf("launch= arg %q is not a Chromium flag", a)
		}
	}
	if n, err := strconv.Atoi(q.Get("timeout")); poolEnv["TIMEOUT"] != "0" && (err != nil || n <= 0) {
		t.Errorf("the pool's TIMEOUT is %q and --cdp-url has no timeout= of its own: the pool ends every Session of a runtime when it fires", poolEnv["TIMEOUT"])
	}
}

func k8sEnvOf(c k8sContainer) (values map[string]string, secret map[string]bool) {
	values, secret = map[string]string{}, map[string]bool{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			secret[e.Name] = true
			continue
		}
		values[e.Name] = e.Value
	}
	return values, secret
}

func container(t *testing.T, deployments map[string]k8sObject, name string) k8sContainer {
	t.Helper()
	for _, c := range deployments[name].Spec.Template.Spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("kubernetes.yaml has no Deployment %q with a container of that name", name)
	return k8sContainer{}
}

// flags maps each --flag=value (or --flag value) of a command line.
func flags(args []string) map[string]string {
	out := map[string]string{}
	for i, a := range args {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if k, v, ok := strings.Cut(a, "="); ok {
			out[k] = v
		} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			out[a] = args[i+1]
		}
	}
	return out
}

// httpPort is the port of the runtime's --http address.
func httpPort(t *testing.T, args map[string]string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(args["--http"])
	if err != nil || port == "0" {
		t.Fatalf("poppy-browser's --http is %q, want HOST:PORT with a fixed port for the probes", args["--http"])
	}
	return port
}

func decodeAll(t *testing.T, name string, decode func(*yaml.Decoder) error) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := yaml.NewDecoder(f)
	if err := decode(d); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s: %v", name, err)
	}
}
