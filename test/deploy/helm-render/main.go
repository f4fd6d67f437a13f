// helm-render renders a Helm chart the way `helm template` does, for tests on machines without a
// helm binary. It uses what helm's own engine uses: Go's text/template, Masterminds/sprig (v3,
// Debian's golang-github-masterminds-sprig-dev), helm's additions (include, tpl, required,
// toYaml/fromYaml/toJson/fromJson, lookup, .Files.Get), values coalesced as helm does (chart defaults, then
// each -f file; null deletes a default), values.schema.json checked with xeipuuv/gojsonschema
// (the validator of helm 3 up to 3.17), and helm's split of the output into documents.
//
// Usage: helm-render -chart DIR [-f values.yaml ...] [-name RELEASE] [-namespace NS]
// Prints one JSON object: {"manifests":[{"template":..,"object":..}],"notes":".."}; exits 2 with
// the error on stderr when the values or a template are refused.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
	"github.com/xeipuuv/gojsonschema"
)

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

type manifest struct {
	Template string      `json:"template"`
	Object   interface{} `json:"object"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}

func readYAML(file string) map[string]interface{} {
	raw, err := os.ReadFile(file)
	if err != nil {
		fail("%v", err)
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(raw, &out); err != nil {
		fail("%s: %v", file, err)
	}
	return out
}

// coalesce merges src over dst as helm's chartutil.CoalesceTables does for user values: maps
// merge key by key, anything else replaces, and a null removes the default.
func coalesce(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		sm, sok := v.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if sok && dok {
			dst[k] = coalesce(dm, sm)
		} else {
			dst[k] = v
		}
	}
	return dst
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

// chartFiles is .Files: the chart's own files outside templates/ (helm's loader keeps Chart.yaml,
// values.yaml, values.schema.json and templates/ apart, and never reads outside the chart). Get
// answers "" for a file it does not hold, as helm does.
type chartFiles struct{ dir string }

func (f chartFiles) Get(name string) string {
	clean := path.Clean(filepath.ToSlash(name))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "templates/") ||
		clean == "Chart.yaml" || clean == "values.yaml" || clean == "values.schema.json" {
		return ""
	}
	raw, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(clean)))
	if err != nil {
		return ""
	}
	return string(raw)
}

type capabilities struct {
	KubeVersion map[string]string
	APIVersions apiVersions
	HelmVersion map[string]string
}

type apiVersions []string

// Has is what templates call as .Capabilities.APIVersions.Has "group/version[/Kind]".
func (a apiVersions) Has(v string) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

func main() {
	chartDir := flag.String("chart", "", "chart folder")
	name := flag.String("name", "release", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	var files valueFiles
	var apis valueFiles
	flag.Var(&files, "f", "values file (repeatable)")
	flag.Var(&apis, "api-versions", "extra API versions the cluster serves (repeatable), as helm's --api-versions")
	flag.Parse()

	chartMeta := readYAML(filepath.Join(*chartDir, "Chart.yaml"))
	values := readYAML(filepath.Join(*chartDir, "values.yaml"))
	for _, f := range files {
		values = coalesce(values, readYAML(f))
	}

	if schema, err := os.ReadFile(filepath.Join(*chartDir, "values.schema.json")); err == nil {
		res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewGoLoader(values))
		if err != nil {
			fail("values.schema.json: %v", err)
		}
		if !res.Valid() {
			var msgs []string
			for _, e := range res.Errors() {
				msgs = append(msgs, "- "+e.String())
			}
			sort.Strings(msgs)
			fail("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%s", chartMeta["name"], strings.Join(msgs, "\n"))
		}
	}

	// .Chart with helm's field names.
	chart := map[string]interface{}{}
	for k, v := range chartMeta {
		chart[strings.ToUpper(k[:1])+k[1:]] = v
	}
	chartName, _ := chartMeta["name"].(string)
	top := map[string]interface{}{
		"Values": values,
		"Chart":  chart,
		"Files":  chartFiles{dir: *chartDir},
		"Release": map[string]interface{}{
			"Name": *name, "Namespace": *namespace, "Service": "Helm", "Revision": 1, "IsInstall": true, "IsUpgrade": false,
		},
		"Capabilities": capabilities{
			KubeVersion: map[string]string{"Version": "v1.31.0", "Major": "1", "Minor": "31", "GitVersion": "v1.31.0"},
			APIVersions: append(apiVersions{"v1", "apps/v1", "autoscaling/v2", "policy/v1", "networking.k8s.io/v1"}, apis...),
			HelmVersion: map[string]string{"Version": "v3.16.0"},
		},
	}

	// Every file under templates/, named as helm names them: <chart>/templates/<path>.
	tmplRoot := filepath.Join(*chartDir, "templates")
	var names []string
	sources := map[string]string{}
	filepath.Walk(tmplRoot, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tmplRoot, p)
		n := path.Join(chartName, "templates", filepath.ToSlash(rel))
		raw, _ := os.ReadFile(p)
		sources[n] = string(raw)
		names = append(names, n)
		return nil
	})
	sort.Strings(names)

	t := template.New("gotpl").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	includedNames := map[string]int{}
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["toJson"] = toJSON
	funcs["fromJson"] = fromJSON
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return v, fmt.Errorf(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return v, fmt.Errorf(msg)
		}
		return v, nil
	}
	funcs["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	funcs["include"] = func(n string, data interface{}) (string, error) {
		if includedNames[n] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", n)
		}
		includedNames[n]++
		var buf bytes.Buffer
		err := t.ExecuteTemplate(&buf, n, data)
		includedNames[n]--
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := t.Clone()
		if err != nil {
			return "", err
		}
		parsed, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %v", text, err)
		}
		var buf bytes.Buffer
		if err := parsed.Execute(&buf, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %v", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	t.Funcs(funcs)
	for _, n := range names {
		if _, err := t.New(n).Parse(sources[n]); err != nil {
			fail("parse error in %s", err)
		}
	}

	split := regexp.MustCompile(`(?:^|\s*\n)---\s*`)
	var out struct {
		Manifests []manifest `json:"manifests"`
		Notes     string     `json:"notes"`
	}
	out.Manifests = []manifest{}
	for _, n := range names {
		if strings.HasPrefix(path.Base(n), "_") {
			continue
		}
		vals := map[string]interface{}{}
		for k, v := range top {
			vals[k] = v
		}
		vals["Template"] = map[string]interface{}{"Name": n, "BasePath": path.Join(chartName, "templates")}
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, n, vals); err != nil {
			fail("%v", err)
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if path.Base(n) == "NOTES.txt" {
			out.Notes = text
			continue
		}
		if !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") && !strings.HasSuffix(n, ".tpl") {
			continue
		}
		for _, doc := range split.Split(text, -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var obj interface{}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				fail("YAML parse error on %s: %v\n%s", n, err, doc)
			}
			if obj == nil {
				continue
			}
			out.Manifests = append(out.Manifests, manifest{Template: n, Object: obj})
		}
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fail("%v", err)
	}
}
