/* Notiflow's in-app inbox widget (docs/design/inbox.md, "In-app inbox"): <notiflow-inbox>, a web
 * component with no framework and no build step. Attributes: `api` (the Notiflow origin, empty
 * for this one), `recipient`, `token` (the server computes it: {% notiflow_inbox %}). A bell with
 * the unread count opens a list; a click on a message marks it read (and follows its link);
 * "Mark all read" and "Archive" do what they say; "Load more" reads the feed's next page; a stream
 * keeps it live, and a mark made elsewhere (another tab) shows on the list. Themable with the CSS
 * custom properties below, set on the element or an ancestor. */
(() => {
  "use strict";
  const STYLE = `
    :host { --nf-accent: #2f6fb5; --nf-bg: #fff; --nf-fg: #1d1d1f; --nf-muted: #6b6b70;
      --nf-border: #d9d9de; --nf-unread: #eef4fb; --nf-badge: #c62828; --nf-radius: 8px;
      --nf-font: system-ui, sans-serif; --nf-width: 360px;
      position: relative; display: inline-block; font-family: var(--nf-font); color: var(--nf-fg); }
    button { font: inherit; cursor: pointer; }
    button:focus-visible, li:focus-visible { outline: 2px solid var(--nf-accent); outline-offset: 2px; }
    .bell { position: relative; background: none; border: 0; padding: 6px; color: inherit; line-height: 0; }
    .badge { position: absolute; top: 0; right: 0; min-width: 18px; padding: 0 4px; border-radius: 9px;
      background: var(--nf-badge); color: #fff; font-size: 11px; line-height: 18px; text-align: center; }
    .badge[hidden] { display: none; }
    .panel { position: absolute; right: 0; z-index: 1000; width: var(--nf-width); max-width: calc(100vw - 16px);
      max-height: 70vh; overflow: auto; background: var(--nf-bg); border: 1px solid var(--nf-border);
      border-radius: var(--nf-radius); box-shadow: 0 8px 24px rgba(0,0,0,.15); }
    .panel[hidden] { display: none; }
    header { display: flex; justify-content: space-between; align-items: center; padding: 8px 12px;
      border-bottom: 1px solid var(--nf-border); font-weight: 600; }
    header button, .archive, .more { background: none; border: 0; color: var(--nf-accent); font-size: 13px; }
    .more { display: block; width: 100%; padding: 10px 12px; }
    .more[hidden] { display: none; }
    ul { list-style: none; margin: 0; padding: 0; }
    li { padding: 10px 12px; border-bottom: 1px solid var(--nf-border); cursor: pointer; display: flex; gap: 8px; }
    li.unread { background: var(--nf-unread); }
    li .text { flex: 1; min-width: 0; overflow-wrap: anywhere; }
    li .title { font-weight: 600; }
    li .body p { margin: 2px 0; } li .time { color: var(--nf-muted); font-size: 12px; }
    .empty { padding: 16px 12px; color: var(--nf-muted); }`;

  const ago = (iso) => {
    const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (s < 60) return "just now";
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    return new Date(iso).toLocaleDateString();
  };

  class NotiflowInbox extends HTMLElement {
    constructor() {
      super();
      this.messages = new Map(); // id -> message, kept once by id
      this.counts = { unseen: 0, unread: 0, total: 0 };
      this.lastEventId = "";
      this.nextCursor = null; // the feed's next page, older than every message shown
      this.root = this.attachShadow({ mode: "open" });
      this.root.innerHTML = `<style>${STYLE}</style>
        <button class="bell" part="bell" aria-haspopup="true" aria-expanded="false"
          aria-label="Notifications"><svg aria-hidden="true" width="22" height="22" viewBox="0 0 24 24"
          fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"><path
          d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9"/><path d="M10.3 21a1.94 1.94 0 0 0 3.4 0"/></svg><span
          class="badge" hidden></span></button>
        <div class="panel" part="panel" role="dialog" aria-label="Notifications" hidden>
          <header><span>Notifications</span><button class="all" type="button">Mark all read</button></header>
          <ul role="list"></ul><button class="more" type="button" hidden>Load more</button></div>`;
      this.bell = this.root.querySelector(".bell");
      this.badge = this.root.querySelector(".badge");
      this.panel = this.root.querySelector(".panel");
      this.list = this.root.querySelector("ul");
      this.more = this.root.querySelector(".more");
      this.more.addEventListener("click", () => this.loadMore());
      this.bell.addEventListener("click", () => this.toggle());
      this.root.querySelector(".all").addEventListener("click", () => this.markAll("read"));
      this.addEventListener("keydown", (e) => {
        if (e.key === "Escape" && !this.panel.hidden) { this.toggle(false); this.bell.focus(); }
      });
    }

    get api() { return (this.getAttribute("api") || "").replace(/\/$/, ""); }
    get auth() { return `Recipient ${this.getAttribute("recipient")}:${this.getAttribute("token")}`; }

    connectedCallback() { this.load(); this.listen(); }
    disconnectedCallback() { if (this.abort) this.abort.abort(); }

    async call(path, body) {
      const init = { headers: { Authorization: this.auth } };
      if (body) {
        init.method = "POST";
        init.body = JSON.stringify(body);
        init.headers["Content-Type"] = "application/json";
      }
      const answer = await fetch(this.api + path, init);
      if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
      return answer.json();
    }

    async load() {
      const [feed, counts] = await Promise.all([this.call("/api/inbox/"), this.call("/api/inbox/counts/")]);
      feed.results.forEach((m) => this.messages.set(m.id, m));
      this.nextCursor = feed.next_cursor;
      this.loaded = true;
      this.show(counts);
    }

    async loadMore() {
      if (!this.nextCursor || this.more.disabled) return;
      this.more.disabled = true;
      try {
        const page = await this.call(`/api/inbox/?cursor=${encodeURIComponent(this.nextCursor)}`);
        page.results.forEach((m) => { if (!this.messages.has(m.id)) this.messages.set(m.id, m); });
        this.nextCursor = page.next_cursor;
        this.show();
      } finally { this.more.disabled = false; }
    }

    // The stream says only that the counts changed: when they differ from what this tab knows
    // (its own marks' answers, the new messages it was sent), a mark was made elsewhere, so the
    // shown messages' states are read again: the feed, archived ones included, down to the
    // oldest shown. One read at a time; a change during it reads once more.
    async refresh() {
      if (this.refreshing) { this.stale = true; return; }
      this.refreshing = true;
      try {
        do {
          this.stale = false;
          const times = [...this.messages.values()].map((m) => Date.parse(m.created_at));
          const oldest = times.length ? Math.min(...times) : Infinity;
          let cursor = "";
          for (;;) {
            const page = await this.call(`/api/inbox/?archived=all&limit=100${cursor && `&cursor=${encodeURIComponent(cursor)}`}`);
            page.results.forEach((m) => { if (Date.parse(m.created_at) >= oldest) this.messages.set(m.id, m); });
            const last = page.results[page.results.length - 1];
            if (!page.next_cursor || !last || Date.parse(last.created_at) <= oldest) break;
            cursor = page.next_cursor;
          }
          this.show();
        } while (this.stale);
      } catch (error) { /* the next change reads again */ } finally { this.refreshing = false; }
    }

    async listen() { // Server-Sent Events over fetch(): EventSource cannot send Authorization
      for (let wait = 1000; this.isConnected; wait = Math.min(wait * 2, 30000)) {
        this.abort = new AbortController();
        try {
          const headers = { Authorization: this.auth };
          if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
          const answer = await fetch(this.api + "/api/inbox/stream/", { headers, signal: this.abort.signal });
          if (answer.status === 401) return;
          if (!answer.ok) throw new Error(`stream: ${answer.status}`); // 429: back off, then again
          const reader = answer.body.getReader(), decoder = new TextDecoder();
          let buffer = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            wait = 1000;
            buffer += decoder.decode(value, { stream: true });
            let end;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              this.event(buffer.slice(0, end)); buffer = buffer.slice(end + 2);
            }
          }
        } catch (error) { if (!this.isConnected) return; }
        await new Promise((r) => setTimeout(r, wait));
      }
    }

    event(block) {
      const fields = {};
      for (const line of block.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const at = line.indexOf(": ");
        fields[line.slice(0, at)] = line.slice(at + 2);
      }
      if (fields.id) this.lastEventId = fields.id;
      if (!fields.data) return;
      const data = JSON.parse(fields.data);
      if (fields.event === "message") {
        if (!this.messages.has(data.id) && !data.archived_at) {
          this.counts.total += 1;
          if (!data.seen_at) this.counts.unseen += 1;
          if (!data.read_at) this.counts.unread += 1;
        }
        this.messages.set(data.id, data);
        this.show();
      }
      if (fields.event === "counts") {
        const known = this.counts;
        if (this.loaded && ["unseen", "unread", "total"].some((k) => known[k] !== data[k])) this.refresh();
        this.show(data);
      }
    }

    async mark(ids, as) {
      const answer = await this.call("/api/inbox/mark/", { ids, as });
      this.apply(answer, as);
    }

    async markAll(as) { this.apply(await this.call("/api/inbox/mark-all/", { as }), as); }

    apply(answer, as) {
      const now = new Date().toISOString();
      for (const id of answer.marked) {
        const m = this.messages.get(id);
        if (!m) continue;
        if (as === "read") { m.read_at = m.read_at || now; m.seen_at = m.seen_at || now; }
        if (as === "seen") m.seen_at = m.seen_at || now;
        if (as === "archived") this.messages.delete(id);
      }
      this.show(answer.counts);
    }

    toggle(open = this.panel.hidden) {
      this.panel.hidden = !open;
      this.bell.setAttribute("aria-expanded", String(open));
      if (open) {
        const unseen = [...this.messages.values()].filter((m) => !m.seen_at).map((m) => m.id);
        if (unseen.length) this.mark(unseen.slice(0, 100), "seen");
      }
    }

    show(counts) {
      if (counts) this.counts = counts;
      const unread = this.counts.unread;
      this.badge.hidden = unread === 0;
      this.badge.textContent = unread > 99 ? "99+" : String(unread);
      this.bell.setAttribute("aria-label", `Notifications, ${unread} unread`);
      const shown = [...this.messages.values()].filter((m) => !m.archived_at)
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1));
      this.list.replaceChildren(...shown.map((m) => this.item(m)));
      this.more.hidden = !this.nextCursor;
      if (!shown.length) this.list.innerHTML = '<li class="empty" role="listitem">Nothing here yet</li>';
    }

    item(m) {
      const li = document.createElement("li");
      li.className = m.read_at ? "read" : "unread";
      li.tabIndex = 0;
      li.setAttribute("role", "listitem");
      li.dataset.id = m.id;
      const text = document.createElement("div");
      text.className = "text";
      const title = document.createElement("div");
      title.className = "title";
      title.textContent = m.title;
      const body = document.createElement("div");
      body.className = "body";
      body.innerHTML = m.body_html; // escaped by the server; its small Markdown subset only
      const time = document.createElement("div");
      time.className = "time";
      time.textContent = ago(m.created_at);
      text.append(title, body, time);
      const archive = document.createElement("button");
      archive.className = "archive";
      archive.type = "button";
      archive.textContent = "Archive";
      archive.setAttribute("aria-label", `Archive: ${m.title}`);
      archive.addEventListener("click", (e) => { e.stopPropagation(); this.mark([m.id], "archived"); });
      li.append(text, archive);
      const open = async () => {
        if (!m.read_at) await this.mark([m.id], "read");
        if (m.action_url) window.location.assign(m.action_url);
      };
      li.addEventListener("click", open);
      li.addEventListener("keydown", (e) => { if (e.key === "Enter" && e.target === li) open(); });
      return li;
    }
  }

  if (!customElements.get("notiflow-inbox")) customElements.define("notiflow-inbox", NotiflowInbox);
})();
