package webapp

import (
	"net/http"
	"net/url"

	"github.com/studyloop/studyloop/templates"
)

// assistantsURL is the page listing a student's connected assistants.
const assistantsURL = "/app/assistants"

// Assistants answers GET /app/assistants: the student's live OAuth grants,
// each with a Revoke button.
func (a *App) Assistants() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		grants, err := a.db.UserGrants(ctx, user, a.now())
		if err != nil {
			a.fail(w, r, err)
			return
		}
		p := templates.AssistantsProps{
			Page:      templates.PageProps{Title: "Connected assistants", SignedIn: true},
			CSRFToken: a.sessions.CSRFToken(ctx),
		}
		for _, g := range grants {
			name := g.Client.Name
			if name == "" {
				name = templates.T(ctx, "Unnamed assistant")
			}
			p.Assistants = append(p.Assistants, templates.AssistantItem{
				Name:      name,
				Host:      redirectHost(g.Client.RedirectURIs),
				FirstUsed: g.FirstUsed.Format("2 Jan 2006 15:04 MST"),
				LastUsed:  g.LastUsed.Format("2 Jan 2006 15:04 MST"),
				RevokeURL: assistantsURL + "/" + url.PathEscape(g.ID) + "/revoke",
			})
		}
		a.render(w, r, http.StatusOK, templates.Assistants(p))
	})
}

// RevokeAssistant answers POST /app/assistants/{id}/revoke: it ends the
// student's grant and goes back to the list. Another student's grant, or
// one already ended, is 404.
func (a *App) RevokeAssistant() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		user, err := userID(ctx)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if err := a.db.EndUserGrant(ctx, user, r.PathValue("id"), a.now()); err != nil {
			a.fail(w, r, err)
			return
		}
		http.Redirect(w, r, assistantsURL, http.StatusSeeOther)
	})
}

// redirectHost is the host of the first redirect URI, shown plainly so the
// student can tell where an assistant's sign-ins go.
func redirectHost(uris []string) string {
	for _, raw := range uris {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			return u.Host
		}
	}
	return ""
}
