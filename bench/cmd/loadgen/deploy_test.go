package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// k8s is a Kubernetes manifest, as far as deploy/k8s writes one: decoded
// strictly, a key it does not know (a typo) is an error.
type k8s struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		// A PersistentVolumeClaim's
		AccessModes []string `yaml:"accessModes"`
		Resources   struct {
			Requests map[string]string `yaml:"requests"`
		} `yaml:"resources"`
		// A Job's
		CompletionMode       string `yaml:"completionMode"`
		Completions          *int   `yaml:"completions"`
		Parallelism          *int   `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec PodSpec `yaml:"spec"`
		} `yaml:"template"`
		PodSpec `yaml:",inline"` // a Pod's
	} `yaml:"spec"`
}

// PodSpec is a Pod's spec, or a Job's pod template's.
type PodSpec struct {
	RestartPolicy string `yaml:"restartPolicy"`
	Affinity      struct {
		PodAntiAffinity struct {
			Required []struct {
				LabelSelector struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				} `yaml:"labelSelector"`
				TopologyKey string `yaml:"topologyKey"`
			} `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
		} `yaml:"podAntiAffinity"`
	} `yaml:"affinity"`
	Containers []struct {
		Name            string   `yaml:"name"`
		Image           string   `yaml:"image"`
		ImagePullPolicy string   `yaml:"imagePullPolicy"`
		Command         []string `yaml:"command"`
		Args            []string `yaml:"args"`
		Env             []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom struct {
				FieldRef struct {
					FieldPath string `yaml:"fieldPath"`
				} `yaml:"fieldRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	} `yaml:"containers"`
	Volumes []struct {
		Name string `yaml:"name"`
		PVC  struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	} `yaml:"volumes"`
}

// manifest reads the YAML documents of a file of deploy/k8s, with its
// placeholders replaced as deploy/README.md replaces them.
func manifest(t *testing.T, name string, replace ...string) map[string]*k8s {
	t.Helper()
	data, err := os.ReadFile("../../../deploy/k8s/" + name)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(replace); i += 2 {
		if !bytes.Contains(data, []byte(replace[i])) {
			t.Errorf("%s has no placeholder %s", name, replace[i])
		}
		data = bytes.ReplaceAll(data, []byte(replace[i]), []byte(replace[i+1]))
	}
	docs := map[string]*k8s{}
	dec := yaml.NewDecoder(bytes.NewReader(data), yaml.Strict())
	for {
		var d k8s
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs[d.Kind] = &d
	}
	return docs
}

// The Indexed Job runs one loadgen per node, all from one start time, each
// with a command line that loadgen takes, writing its own log to the shared
// volume that the merge pod reads.
func TestKubernetesJob(t *testing.T) {
	start := time.Now().Add(2 * time.Minute).Truncate(time.Second)
	docs := manifest(t, "loadgen-job.yaml", "IMAGE", "example/loadgen:1", "TARGET", "127.0.0.1:8080",
		"START_TIME", strconv.FormatInt(start.Unix(), 10))
	pvc, job := docs["PersistentVolumeClaim"], docs["Job"]
	if pvc == nil || job == nil || len(docs) != 2 {
		t.Fatalf("want a PersistentVolumeClaim and a Job: %v", docs)
	}
	if pvc.APIVersion != "v1" || pvc.Metadata.Name != "loadgen-out" || len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != "ReadWriteMany" {
		t.Errorf("claim %+v", pvc)
	}
	s := job.Spec
	switch {
	case job.APIVersion != "batch/v1" || s.CompletionMode != "Indexed":
		t.Errorf("%s %s, completion mode %q", job.APIVersion, job.Kind, s.CompletionMode)
	case s.Completions == nil || s.Parallelism == nil || *s.Completions < 2 || *s.Parallelism != *s.Completions:
		t.Errorf("completions %v, parallelism %v: want several, all at once", s.Completions, s.Parallelism)
	case s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0:
		t.Errorf("backoffLimitPerIndex %v, want 0: a pod retried would start after the others", s.BackoffLimitPerIndex)
	}
	p := s.Template.Spec
	aa := p.Affinity.PodAntiAffinity.Required
	if p.RestartPolicy != "Never" || len(aa) != 1 || aa[0].TopologyKey != "kubernetes.io/hostname" ||
		len(aa[0].LabelSelector.MatchLabels) == 0 {
		t.Fatalf("pod spec %+v: want one pod per node, never restarted", p)
	}
	for k, v := range aa[0].LabelSelector.MatchLabels {
		if s.Template.Metadata.Labels[k] != v {
			t.Errorf("anti-affinity selects %s=%s, which the pods lack", k, v)
		}
	}
	if len(p.Containers) != 1 {
		t.Fatalf("%d containers", len(p.Containers))
	}
	c := p.Containers[0]
	if c.Image != "example/loadgen:1" || len(c.Command) != 1 || c.Command[0] != "loadgen" {
		t.Errorf("image %q, command %q", c.Image, c.Command)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.Name == "JOB_COMPLETION_INDEX" {
			if e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
				t.Errorf("JOB_COMPLETION_INDEX from %q", e.ValueFrom.FieldRef.FieldPath)
			}
			env[e.Name] = "2" // as Kubernetes sets it in the third pod
		}
	}
	// Kubernetes expands $(NAME) in args from the container's env.
	var args []string
	for _, a := range c.Args {
		args = append(args, regexp.MustCompile(`\$\(([A-Z_]+)\)`).ReplaceAllStringFunc(a, func(m string) string {
			v, ok := env[m[2:len(m)-1]]
			if !ok {
				t.Errorf("args name %s, which env lacks", m)
			}
			return v
		}))
	}
	var stderr strings.Builder
	o, code := parse(args, io.Discard, &stderr, time.Now())
	if o == nil {
		t.Fatalf("loadgen %q: exit %d: %s", args, code, stderr.String())
	}
	if !o.startAt.Equal(start) || o.out != "/out/2.hlog" || o.cfg.URL != "http://127.0.0.1:8080/hello/world" || !o.quiet {
		t.Errorf("loadgen %q: start %v, -o %q, URL %q, quiet %v", args, o.startAt, o.out, o.cfg.URL, o.quiet)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/out" || len(p.Volumes) != 1 ||
		p.Volumes[0].Name != c.VolumeMounts[0].Name || p.Volumes[0].PVC.ClaimName != pvc.Metadata.Name {
		t.Errorf("volumes %+v, mounts %+v: want the claim at /out", p.Volumes, c.VolumeMounts)
	}

	// The merge pod reads the same claim at the same place.
	pod := manifest(t, "loadgen-merge.yaml", "IMAGE", "example/loadgen:1")["Pod"]
	if pod == nil {
		t.Fatal("no Pod in loadgen-merge.yaml")
	}
	m := pod.Spec.PodSpec
	if len(m.Containers) != 1 || strings.Join(m.Containers[0].Command, " ") != "sh -c loadgen merge /out/*.hlog" ||
		m.Containers[0].Image != "example/loadgen:1" || len(m.Containers[0].VolumeMounts) != 1 ||
		m.Containers[0].VolumeMounts[0].MountPath != "/out" || len(m.Volumes) != 1 || m.Volumes[0].PVC.ClaimName != pvc.Metadata.Name ||
		m.RestartPolicy != "Never" {
		t.Errorf("merge pod %+v", m)
	}
}
