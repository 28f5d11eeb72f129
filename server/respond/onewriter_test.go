package respond_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyRespondWritesJSON: no other package of the server sets a JSON
// Content-Type on a response or encodes JSON straight into one, so every
// JSON answer of every route (/mcp's included) goes through JSON or
// EncodedJSON. Built files (static) carry their own types.
func TestOnlyRespondWritesJSON(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.HasPrefix(filepath.ToSlash(path), "../respond/") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch {
			case sel.Sel.Name == "Set" && len(call.Args) == 2 && isString(call.Args[0], "Content-Type") && isJSONType(call.Args[1]):
				t.Errorf("%s: sets a JSON Content-Type; write the answer with respond.JSON", fset.Position(call.Pos()))
			case sel.Sel.Name == "NewEncoder" && isIdent(sel.X, "json") && len(call.Args) == 1 && isIdent(call.Args[0], "w"):
				t.Errorf("%s: encodes JSON into the response; write it with respond.JSON", fset.Position(call.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isString(e ast.Expr, want string) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && s == want
}

func isJSONType(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, _ := strconv.Unquote(lit.Value)
	return strings.HasPrefix(s, "application/json")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
