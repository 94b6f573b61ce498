/* Relais: what Chainlit 2.12 has no setting for (loaded by [UI] custom_js).
 * - long user messages fold in their bubble, with "Show more / Show less";
 * - answers written by an agent carry its badge ("Coach" in the Coach profile, "Agent" after a hand-off,
 *   whichever agent took it), and the header says who answers;
 * - the browser's time zone goes to the server in a cookie, for thread titles;
 * - a folded section of an answer (a step named "📋 …", see chatbot.ui.render) reads as its
 *   title, without Chainlit's "Used" in front of it;
 * - the sources side panel opens only from a source chip: Chainlit opens it by itself, with every
 *   excerpt of the conversation stacked, whenever a thread's side elements appear (a reload,
 *   back/forward, a thread opened from the sidebar); this closes any panel no chip click opened
 *   (the server also closes it after each answer: chatbot.ui.render.close_source_panel);
 * - quick choices are scrolled into view when they appear under the last message (after an answer,
 *   or when a thread is reopened): Chainlit attaches them after the message has scrolled into
 *   place, so they stayed hidden under the message box until the person scrolled;
 * - a button click the server could not deliver (its session was not connected: issue 24,
 *   chatbot.chainlit_fixes.action_route) or that failed is said in a note over the composer, never silent.
 * - a message with nothing visible (zero-width spaces…) is not sent: Chainlit's composer trims
 *   whitespace only, and sent such a message as an empty bubble;
 * - a thumb is a vote: closing the optional comment box (its X, Escape, a click beside it) keeps
 *   it, where Chainlit dropped the vote unless "Submit" was clicked;
 * - Enter in the rename box saves (Chainlit's box has no form: only its button saved);
 * - the login form shows the server's reason (wrong password, too many attempts) in the person's
 *   language: Chainlit's client reads it from the HTTP status text ("Unauthorized"), which names no
 *   translated reason, so the reason the server gives (its `detail`) is handed over as that text;
 * - an admin gets a link to the operator pages (/admin) in the header;
 * - the footer shows only under the profiles it is true of (GET /relais/ui), and not while the
 *   coach answers after a hand-off.
 * Texts follow the browser's language, like Chainlit's own translations. */
(function () {
  "use strict";
  var fr = (navigator.language || "").toLowerCase().indexOf("fr") === 0;
  var T = fr
    ? { more: "Afficher plus", less: "Afficher moins", coach: "Coach", answering: "Le coach vous répond", agent: "Agent", agentAnswering: "L'agent vous répond",
        undelivered: "Ce choix n'a pas pu être transmis. Cliquez de nouveau, ou rechargez la page.", close: "Fermer",
        admin: "Admin", adminTitle: "Pages d'administration" }
    : { more: "Show more", less: "Show less", coach: "Coach", answering: "The coach is answering", agent: "Agent", agentAnswering: "The agent is answering",
        undelivered: "This choice could not be delivered. Please click it again, or reload the page.", close: "Close",
        admin: "Admin", adminTitle: "Admin pages" };
  var FOLD_PX = 320; // a bubble taller than this (and by a margin) folds
  // Chainlit's alt text of an author's avatar → the badge and the header of that author's answers
  var AGENTS = { "Avatar for Coach": [T.coach, T.answering], "Avatar for Agent": [T.agent, T.agentAnswering] };
  var FOLDED_ICON = "\uD83D\uDCCB"; // 📋, leads the step name of a folded section

  try {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz) document.cookie = "relais_tz=" + encodeURIComponent(tz) + "; path=/; SameSite=Lax";
  } catch (e) { /* no time zone: titles use UTC */ }

  var NOTE_MS = 15000;
  function showClickNote(text) {
    var note = document.getElementById("relais-click-note");
    if (!note) {
      note = document.createElement("div");
      note.id = "relais-click-note";
      note.setAttribute("role", "alert");
      var span = document.createElement("span");
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = "\u00d7";
      close.setAttribute("aria-label", T.close);
      close.addEventListener("click", function () { note.remove(); });
      note.appendChild(span);
      note.appendChild(close);
      document.body.appendChild(note);
    }
    note.firstChild.textContent = text || T.undelivered;
    clearTimeout(note.relaisTimer);
    note.relaisTimer = setTimeout(function () { note.remove(); }, NOTE_MS);
  }

  var nativeFetch = window.fetch;
  window.fetch = function (input) {
    var url = typeof input === "string" ? input : (input && input.url) || "";
    var sent = nativeFetch.apply(this, arguments);
    if (String(url).indexOf("/project/action") === -1) return sent;
    return sent.then(function (response) {
      if (response.ok) return response;
      return response.clone().json().then(function (body) {
        if (!body || body.code !== "action_undelivered") { showClickNote(T.undelivered); return response; }
        showClickNote(body.detail);
        // the note says it once, localized: Chainlit would toast the same refusal again, in English
        // ("Conflict: …"), so its button gets a plain answer with nothing to run
        return new Response(JSON.stringify({ success: false, code: body.code }),
                            { status: 200, headers: { "Content-Type": "application/json" } });
      }, function () { showClickNote(T.undelivered); return response; });
    }, function (error) { showClickNote(T.undelivered); throw error; });
  };

  function foldLongMessages() {
    var contents = document.querySelectorAll('[data-step-type="user_message"] .message-content');
    for (var i = 0; i < contents.length; i++) {
      var el = contents[i];
      if (el.dataset.relaisFold || el.scrollHeight < FOLD_PX * 1.3) continue;
      el.dataset.relaisFold = "1";
      el.classList.add("relais-collapsed");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "relais-toggle";
      button.textContent = T.more;
      button.setAttribute("aria-expanded", "false");
      button.addEventListener("click", (function (content, btn) {
        return function () {
          var folded = content.classList.toggle("relais-collapsed");
          btn.textContent = folded ? T.more : T.less;
          btn.setAttribute("aria-expanded", String(!folded));
        };
      })(el, button));
      el.parentNode.insertBefore(button, el.nextSibling);
    }
  }

  function titleFoldedSections() {
    var triggers = document.querySelectorAll('[id^="step-' + FOLDED_ICON + '"]');
    for (var i = 0; i < triggers.length; i++) {
      var walker = document.createTreeWalker(triggers[i], NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        var node = walker.currentNode;
        if (node.nodeValue.indexOf(FOLDED_ICON) !== -1) break; // the title itself
        if (node.nodeValue) node.nodeValue = ""; // "Used" / "Étape :" and the space after it
      }
    }
  }

  function badge(text, id) {
    var span = document.createElement("span");
    span.className = "relais-badge";
    if (id) span.id = id;
    span.textContent = text;
    return span;
  }

  function markCoachAnswers() {
    var steps = document.querySelectorAll('[data-step-type="assistant_message"]');
    var lastAgent = null;
    for (var i = 0; i < steps.length; i++) {
      var step = steps[i];
      var avatar = step.querySelector(".ai-message img[alt]");
      if (!avatar) continue; // not loaded yet: the next mutation comes back here
      var agent = AGENTS[avatar.getAttribute("alt")] || null;
      lastAgent = agent;
      if (!agent || step.dataset.relaisCoach) continue;
      step.dataset.relaisCoach = "1";
      var content = step.querySelector(".message-content");
      if (content && content.parentNode) {
        var label = badge(agent[0]);
        label.classList.add("relais-coach-label");
        content.parentNode.insertBefore(label, content);
      }
    }
    var header = document.getElementById("header");
    var current = document.getElementById("relais-header-badge");
    if (current && (!lastAgent || current.textContent !== lastAgent[1])) {
      current.remove();
      current = null;
    }
    if (lastAgent && header && !current) {
      var anchor = header.firstElementChild || header;
      anchor.appendChild(badge(lastAgent[1], "relais-header-badge"));
    }
  }

  var clickedChip = null; // the name of the source chip the person just clicked, and when
  var clickedAt = 0;
  var allowedPanel = null; // the panel the person opened: its title and how many excerpts
  var CHIP_WAIT_MS = 10000;
  document.addEventListener("click", function (event) {
    var chip = event.target && event.target.closest && event.target.closest("a.element-link");
    if (chip) { clickedChip = chip.textContent.trim(); clickedAt = Date.now(); }
  }, true);

  function keepSourcePanelForChips() {
    var title = document.getElementById("side-view-title");
    if (!title) { allowedPanel = null; return; }
    var content = document.getElementById("side-view-content");
    var shown = title.textContent.trim();
    var key = shown + "|" + (content ? content.childElementCount : 0);
    if (key === allowedPanel) return;
    if (clickedChip === shown && Date.now() - clickedAt < CHIP_WAIT_MS) {
      clickedChip = null;
      allowedPanel = key;
      return;
    }
    var close = title.querySelector("button"); // anything else Chainlit opened by itself: closed, again if it reopens
    if (close) close.click();
    else document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })); // small screens: a dialog
  }

  var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i; // an action button's id
  var shownChoices = ""; // the set of quick choices last scrolled into view

  function scroller(el) {
    for (var node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      var style = window.getComputedStyle(node);
      if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
    }
    return null;
  }

  var pendingChoices = "", pendingSince = 0; // a set not yet seen whole, and since when

  function showQuickChoices() {
    var all = Array.prototype.filter.call(document.querySelectorAll("button[id]"),
      function (b) { return UUID.test(b.id); }); // Chainlit gives an action button its id
    if (!all.length) return;
    var row = all[all.length - 1].parentElement; // the newest message's quick choices
    var buttons = all.filter(function (b) { return b.parentElement === row; });
    var key = buttons.map(function (b) { return b.id; }).join(",");
    if (key === shownChoices) return; // once per set: a person scrolling up is not pulled back
    if (key !== pendingChoices) { pendingChoices = key; pendingSince = Date.now(); }
    var last = buttons[buttons.length - 1];
    var box = scroller(last);
    var bottom = box ? box.getBoundingClientRect().bottom : window.innerHeight;
    if (last.getBoundingClientRect().bottom > bottom + 1) last.scrollIntoView({ block: "end", inline: "nearest" });
    // the answer keeps settling for a moment (its badge, avatar, footer): watch it, then let go
    if (Date.now() - pendingSince > SETTLE_MS) shownChoices = key;
    else window.setTimeout(schedule, 200);
  }
  var SETTLE_MS = 2500;
  ["wheel", "touchmove", "keydown"].forEach(function (kind) { // the person scrolls: never pulled back
    document.addEventListener(kind, function () { if (pendingChoices) shownChoices = pendingChoices; },
      { passive: true, capture: true });
  });

  // --- the composer: nothing visible, nothing sent -------------------------------------------
  // whitespace, format characters (zero-width spaces and joiners, BOM, soft hyphen…), controls and
  // the letters that draw blank (Hangul fillers, braille blank); as assistant.input_guard.is_blank
  var INVISIBLE_ONLY = /^[\s\p{Cf}\p{Cc}\p{Z}\u034F\u115F\u1160\u17B4\u17B5\u180E\u2800\u3164\uFFA0]*$/u;
  var textareaValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");

  function blankComposer() {
    var input = document.getElementById("chat-input");
    if (!input || input.value === "" || !INVISIBLE_ONLY.test(input.value)) return null;
    return input;
  }
  function clearComposer(input) { // through the native setter, so Chainlit's state follows
    textareaValue.set.call(input, "");
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
  window.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    var input = event.target && event.target.id === "chat-input" ? blankComposer() : null;
    if (!input) return;
    event.preventDefault(); event.stopImmediatePropagation(); clearComposer(input);
  }, true);
  window.addEventListener("click", function (event) {
    var submit = event.target && event.target.closest && event.target.closest("#chat-submit");
    var input = submit ? blankComposer() : null;
    if (!input) return;
    event.preventDefault(); event.stopImmediatePropagation(); clearComposer(input);
  }, true);

  // --- thumbs: closing the comment box keeps the vote -----------------------------------------
  function feedbackDialog() {
    var submit = document.getElementById("submit-feedback");
    var dialog = submit && submit.closest('[role="dialog"]');
    return dialog ? { dialog: dialog, submit: submit } : null;
  }
  function keepVote(event) {
    event.preventDefault(); event.stopImmediatePropagation();
    var open = feedbackDialog();
    if (open) open.submit.click(); // the vote, with the comment typed so far (if any)
  }
  window.addEventListener("click", function (event) {
    var open = feedbackDialog();
    var button = open && event.target.closest && event.target.closest("button");
    // the dialog's own close button (an X with a screen-reader "Close"), not Submit
    if (button && open.dialog.contains(button) && button !== open.submit && button.querySelector(".sr-only")) keepVote(event);
  }, true);
  window.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && feedbackDialog()) keepVote(event);
  }, true);
  window.addEventListener("pointerdown", function (event) {
    var open = feedbackDialog();
    if (open && event.target instanceof Node && !open.dialog.contains(event.target)) keepVote(event);
  }, true);

  // --- rename: Enter saves ----------------------------------------------------------------------
  window.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing || !event.target || event.target.id !== "name") return;
    var dialog = event.target.closest('[role="dialog"]');
    var footer = dialog && dialog.querySelector("div.flex-col-reverse");
    var buttons = footer ? footer.querySelectorAll("button") : [];
    if (!buttons.length || !event.target.value.trim()) return;
    event.preventDefault();
    buttons[buttons.length - 1].click(); // Confirm (Cancel comes first)
  }, true);

  // --- login: the server's reason, translated by the form -------------------------------------
  var pageFetch = window.fetch;
  window.fetch = function (resource, init) {
    var result = pageFetch.apply(this, arguments);
    var url = typeof resource === "string" ? resource : (resource && resource.url) || "";
    var post = ((init && init.method) || (resource && resource.method) || "GET").toUpperCase() === "POST";
    if (!post || !/\/login$/.test(url.split("?")[0])) return result;
    return result.then(function (response) {
      if (response.ok) return response;
      return response.clone().json().then(function (body) {
        var reason = body && typeof body.detail === "string" ? body.detail : "";
        if (!/^[A-Za-z]+$/.test(reason)) return response;
        return response.text().then(function (text) {
          return new Response(text, { status: response.status, statusText: reason, headers: response.headers });
        });
      }, function () { return response; });
    });
  };

  // --- what the server says about this person and engine (GET /relais/ui) ----------------------
  var pageInfo = null;
  var pageInfoAsked = false;
  function askPageInfo() {
    if (pageInfoAsked || !document.getElementById("header")) return; // logged in: the chat is shown
    pageInfoAsked = true;
    pageFetch("/relais/ui", { credentials: "same-origin" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (info) { pageInfo = info; schedule(); }, function () { pageInfoAsked = false; });
  }

  var SHIELD = '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" ' +
    'stroke-linejoin="round" aria-hidden="true"><path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z"/></svg>';
  function showAdminLink() {
    var right = document.querySelector("#header > div:last-child");
    if (!pageInfo || !pageInfo.admin || !right || document.getElementById("relais-admin-link")) return;
    var link = document.createElement("a");
    link.id = "relais-admin-link";
    link.href = "/admin";
    link.title = T.adminTitle;
    link.innerHTML = SHIELD;
    var label = document.createElement("span");
    label.textContent = T.admin;
    link.appendChild(label);
    var user = document.getElementById("user-nav-button");
    var before = user && right.contains(user) ? user.closest("#header > div:last-child > *") : null;
    right.insertBefore(link, before);
  }

  function footerForProfile() {
    var mark = document.querySelector(".watermark");
    if (!mark || !pageInfo) return;
    var icons = pageInfo.footer_icons;
    var icon = document.querySelector("#chat-profiles img");
    var src = icon ? icon.getAttribute("src") || "" : "";
    var shown = !icons || !icon || icons.some(function (path) { return src.slice(-path.length) === path; });
    // after a hand-off the coach answers (its badge in the header): its plans are not quoted either
    if (icons && document.getElementById("relais-header-badge")) shown = false;
    mark.style.visibility = shown ? "" : "hidden";
  }

  var scheduled = false;
  function update() {
    scheduled = false;
    try {
      foldLongMessages(); markCoachAnswers(); titleFoldedSections(); keepSourcePanelForChips();
      showQuickChoices();
      askPageInfo(); showAdminLink(); footerForProfile();
    } catch (e) { /* never break the chat */ }
  }
  function schedule() {
    if (!scheduled) { scheduled = true; window.requestAnimationFrame(update); }
  }
  new MutationObserver(schedule).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["alt", "src"] });
})();
