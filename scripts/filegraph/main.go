// Command filegraph shows how the files of one Go package (those built for this platform)
// depend on each other, to keep a
// package's rooms small: an arrow A → B when non-test file A uses a name declared at top level,
// or a method declared, in non-test file B. It prints the arrows, the largest tangle (a strongly
// connected set of files: files that all reach each other), the structs with the most fields and
// the longest files.
//
//	go run ./scripts/filegraph [-arrows] [-top N] DIR...
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	arrows := flag.Bool("arrows", false, "print every arrow")
	top := flag.Int("top", 5, "how many structs and files to list")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: filegraph [-arrows] [-top N] DIR...")
		os.Exit(2)
	}
	failed := false
	for _, dir := range flag.Args() {
		g, err := load(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
			continue
		}
		g.print(dir, *arrows, *top)
	}
	if failed {
		os.Exit(1)
	}
}

// graph is one package's non-test files and the arrows between them.
type graph struct {
	files   []string       // sorted names
	lines   map[string]int // non-blank lines per file
	edges   map[string][]string
	structs []structSize
}

type structSize struct {
	name, file string
	fields     int
}

// load type-checks the package in dir (its files for this platform, imports from source) and
// draws the arrows from what each identifier of a non-test file refers to.
func load(dir string) (*graph, error) {
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	g := &graph{lines: map[string]int{}, edges: map[string][]string{}}
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		p := filepath.Join(dir, name)
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		g.files = append(g.files, name)
		g.lines[name] = strings.Count(string(src), "\n")
		g.structSizes(name, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("filegraph: no non-test Go files in %s", dir)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	tpkg, err := conf.Check(pkg.ImportPath, fset, files, info)
	if err != nil {
		return nil, err
	}
	arrows := map[[2]string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != tpkg || !topLevelOrMethod(obj, tpkg) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to && !arrows[[2]string{from, to}] {
			arrows[[2]string{from, to}] = true
			g.edges[from] = append(g.edges[from], to)
		}
	}
	for _, f := range g.files {
		slices.Sort(g.edges[f])
	}
	slices.Sort(g.files)
	slices.SortFunc(g.structs, func(a, b structSize) int { return b.fields - a.fields })
	return g, nil
}

// topLevelOrMethod reports whether obj is declared at pkg's top level or is a method.
func topLevelOrMethod(obj types.Object, pkg *types.Package) bool {
	if obj.Parent() == pkg.Scope() {
		return true
	}
	fn, ok := obj.(*types.Func)
	return ok && fn.Signature().Recv() != nil
}

// structSizes records the number of fields of each struct type file declares at top level.
func (g *graph) structSizes(file string, f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range gd.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok {
				continue
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				n := 0
				for _, fl := range st.Fields.List {
					n += max(len(fl.Names), 1)
				}
				g.structs = append(g.structs, structSize{ts.Name.Name, file, n})
			}
		}
	}
}

// largestTangle returns the largest strongly connected set of files (Tarjan's algorithm).
func (g *graph) largestTangle() []string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack, best []string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.edges[v] {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > len(best) {
			best = scc
		}
	}
	for _, v := range g.files {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	slices.Sort(best)
	return best
}

func (g *graph) print(dir string, arrows bool, top int) {
	total := 0
	for _, n := range g.lines {
		total += n
	}
	tangle := g.largestTangle()
	fmt.Printf("%s: %d files, %d non-test lines, largest tangle %d files\n", dir, len(g.files), total, len(tangle))
	if len(tangle) > 1 {
		fmt.Printf("  tangle: %s\n", strings.Join(tangle, " "))
	}
	if arrows {
		for _, f := range g.files {
			if len(g.edges[f]) > 0 {
				fmt.Printf("  %s → %s\n", f, strings.Join(g.edges[f], " "))
			}
		}
	}
	fmt.Printf("  largest structs:")
	for _, s := range g.structs[:min(top, len(g.structs))] {
		fmt.Printf(" %s (%s) %d;", s.name, s.file, s.fields)
	}
	fmt.Println()
	byLen := slices.Clone(g.files)
	slices.SortFunc(byLen, func(a, b string) int { return g.lines[b] - g.lines[a] })
	fmt.Printf("  longest files:")
	for _, f := range byLen[:min(top, len(byLen))] {
		fmt.Printf(" %s %d;", f, g.lines[f])
	}
	fmt.Println()
}
