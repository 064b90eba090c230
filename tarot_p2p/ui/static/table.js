// The table page: places what the player's own peer sends, and sends back clicks.
// No game rule lives here: legal cards, words and scores all come in the view.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  let hello = null;
  let view = null;
  let ws = null;
  let proof = null; // the key this page checks its program with (see comeBack)
  let leaving = false;
  let quitting = false;
  let showLast = false;
  let sentSerial = -1;
  let ecartSent = { serial: -1, n: 0 }; // the écart's choices and undos sent (see behind)
  let resultSeen = 0;
  let noticeTimer = null;
  let shownTrick = [];
  let played = null; // {serial, card}: played here, shown as played until the table has it
  let handCards = []; // the hand's card elements, in order
  let handPerRow = 0;
  let focusAt = 0; // the hand's card that keyboard focus is on (or goes to)
  let why = null; // {serial, text}: why the card last clicked may not be played
  let whyTimer = null;
  // A trick just finished stays whole in the centre for a moment (hello.pause ms), its
  // winner marked: bots answer at once, and without the pause the trick's last card
  // would never show and the trick would vanish the moment it is won. Views that come
  // meanwhile wait in `waiting`; a click or a key on the table goes on at once.
  let held = null; // the finished trick shown, from view.tricks
  let heldTimer = null;
  let waiting = null;
  let seenTricks = null; // {hand, count}: the tricks of the deal the page last drew
  let pinned = true; // the room kept scrolled to its end (see keepToEnd)
  let pinnedFor = null; // the last question that scrolled it there

  // A card's visible part is at least this wide and tall (touch targets of 44 px, and a
  // little to spare for rounding).
  const TARGET = 46;

  const POSITIONS = {
    3: ["bottom", "right", "left"],
    4: ["bottom", "right", "top", "left"],
    5: ["bottom", "right", "top-right", "top-left", "left"],
  };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // Each card's drawing is parsed once; the page then clones it (much faster than parsing
  // the SVG text again at every redraw).
  let drawings = new Map();

  function cardEl(c, extra) {
    let model = drawings.get(c);
    if (!model) {
      model = el("div");
      model.innerHTML = hello.cards[c];
      drawings.set(c, model);
    }
    const d = model.cloneNode(true);
    d.className = "card" + (extra ? " " + extra : "");
    d.dataset.card = String(c);
    return d;
  }

  function backEl() {
    let model = drawings.get("back");
    if (!model) {
      model = el("div", "back");
      model.innerHTML = hello.back;
      drawings.set("back", model);
    }
    return model.cloneNode(true);
  }

  function position(seat) {
    const n = view.players;
    return POSITIONS[n][(seat - view.me + n) % n];
  }

  function send(message) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(message));
    if (message.t === "card" || message.t === "undo") {
      if (ecartSent.serial !== message.serial) ecartSent = { serial: message.serial, n: 0 };
      ecartSent.n += 1;
    }
  }

  // A view of the écart being made that has not yet taken in every choice this page sent
  // is older than what the page shows: drawn, it would put a card just chosen back into
  // the hand, where the player's next click lands on it. The view that holds them follows.
  function behind(next) {
    const d = next && next.decision;
    return Boolean(d && d.kind === "ecart" && d.serial === ecartSent.serial && d.clicks < ecartSent.n);
  }

  function connect() {
    const url = new URL("ws", location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(url);
    ws = socket;
    ecartSent = { serial: -1, n: 0 }; // what the program has taken in is all there is now
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "proof") {
        proof = message.key;
      } else if (message.type === "error") {
        $("status").textContent = message.text;
      } else if (message.type === "hello") {
        hello = message;
        drawings = new Map();
        placeLabels();
        followBrowser();
      } else if (message.type === "view" && hello) {
        const next = message.view;
        if (behind(next)) return;
        if (next && next.lang !== hello.lang) {
          view = next;
          socket.close();
          return;
        }
        if (held) {
          waiting = next;
          return;
        }
        view = next;
        render();
      }
    };
    socket.onclose = () => {
      if (ws !== socket) return;
      if (leaving || quitting) return;
      if (hello && view && view.lang !== hello.lang) {
        hello = null;
        connect();
        return;
      }
      document.body.classList.add("offline");
      // After the game its program ends (the player left in another tab, or let it go):
      // nothing to take back then.
      const over = view && view.sheet && view.sheet.over;
      $("status").textContent = hello ? hello.labels[over ? "over_closed" : "disconnected"] : "…";
      comeBack(1000);
    };
  }

  // The program stopped or crashed: ask until it answers. Run again, it serves the same
  // address and knows this page's cookie: the page then reloads, state and all. But while
  // it was down anyone could have taken its port, and a reload sends the cookie to whoever
  // answers: so the page first asks, without its cookie, for a proof that the program
  // there is its own (an HMAC of a fresh nonce under the key it gave this page). A
  // program that cannot prove it (its port was taken, so it moved with a new key) is not
  // this page's any more: the player is told where to go instead.
  function comeBack(delay) {
    setTimeout(() => {
      const again = () => comeBack(Math.min(delay + 500, 2000));
      isOwnProgram()
        .then((own) => {
          if (own) {
            location.reload();
            return;
          }
          $("status").textContent = hello ? hello.labels.new_page : "…";
          again();
        })
        .catch(again); // nobody answers yet
    }, delay);
  }

  async function isOwnProgram() {
    const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    const nonce = hex(crypto.getRandomValues(new Uint8Array(16)));
    const answer = await fetch("alive?n=" + nonce, { credentials: "omit", cache: "no-store" });
    if (!answer.ok || !proof) return false;
    const raw = new Uint8Array(proof.match(/../g).map((h) => parseInt(h, 16)));
    const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(nonce));
    return hex(new Uint8Array(mac)) === (await answer.text()).trim();
  }

  // Without --lang, the page speaks its browser's first language that the table knows.
  function followBrowser() {
    if (!hello.follow) return;
    const known = navigator.languages
      .map((tag) => tag.slice(0, 2).toLowerCase())
      .find((lang) => hello.languages.includes(lang));
    if (known && known !== hello.lang) send({ t: "lang", lang: known });
  }

  function placeLabels() {
    document.documentElement.lang = hello.lang;
    document.title = hello.labels.title;
    $("title").textContent = hello.labels.title;
    for (const node of document.querySelectorAll("[data-label]")) {
      node.textContent = hello.labels[node.dataset.label];
    }
    const langs = $("langs");
    langs.replaceChildren();
    for (const lang of hello.languages) {
      const b = el("button", "lang" + (lang === hello.lang ? " current" : ""), lang.toUpperCase());
      b.type = "button";
      b.addEventListener("click", () => send({ t: "lang", lang }));
      langs.append(b);
    }
    $("last-button").textContent = hello.labels.last_trick;
    $("status").textContent = hello.labels.connecting;
  }

  // ---------------------------------------------------------------- rendering

  function render() {
    // Before the game starts a player may still leave: the host frees the seat at once.
    $("quit").hidden = quitting || Boolean(view && !view.lobby);
    if (quitting) return;
    if (!view) {
      $("status").textContent = hello.labels.waiting_table;
      return;
    }
    $("status").textContent = view.status || "";
    $("lobby").hidden = !(view.lobby && (view.join_command || view.seated));
    document.body.classList.toggle("lobby", Boolean(view.lobby));
    if (view.lobby) {
      $("seated").textContent = view.seated || "";
      $("join-help").textContent = view.join_help || "";
      $("join-command").textContent = view.join_command || "";
      $("join-command").hidden = !view.join_command;
      $("copy").hidden = !view.join_command;
      return;
    }
    noteTricks();
    const decision = held ? null : view.decision;
    document.body.dataset.decision = decision ? String(decision.serial) : "";
    document.body.dataset.kind = decision ? decision.kind : "";
    renderNotice();
    renderSeats();
    renderCentre();
    renderContract();
    renderPrompt();
    renderHand();
    renderLast();
    renderLog();
    renderTricks();
    renderResult();
    renderSheet();
    renderTrust();
    renderOver();
    renderTabs();
    if (decision && decision.serial !== pinnedFor) {
      pinnedFor = decision.serial;
      pinned = true;
    }
    keepToEnd();
    if (held) $("status").textContent = heldCaption();
  }

  // Where the table and the hand do not both fit, the room scrolls (see table.css). It is
  // kept scrolled to its end, so that the hand and the prompt just above it show whole
  // without the player looking for them, whatever grows above them (a notice, a seat's
  // badge): until the player scrolls away, then again from the next question asked.
  function keepToEnd() {
    const room = $("room");
    if (pinned) room.scrollTop = room.scrollHeight;
  }

  function notePinned() {
    const room = $("room");
    pinned = room.scrollTop + room.clientHeight >= room.scrollHeight - 2;
  }

  // A trick more than the page last drew, in the same deal: it was just won. The first
  // view the page draws (opened, reloaded) only counts the tricks.
  function noteTricks() {
    const count = (view.tricks || []).length;
    const pause = hello.pause || 0;
    if (pause > 0 && seenTricks && seenTricks.hand === view.hand_number && count > seenTricks.count) {
      held = view.tricks[count - 1];
      clearTimeout(heldTimer);
      heldTimer = setTimeout(goOn, pause);
    }
    seenTricks = { hand: view.hand_number, count };
  }

  function heldCaption() {
    return hello.templates.takes.replace("{name}", view.names[held.winner]).replace("{n}", String(held.number));
  }

  // The pause after a trick is over: the table as it stands now.
  function goOn() {
    if (!held) return;
    clearTimeout(heldTimer);
    held = null;
    if (waiting) view = waiting;
    waiting = null;
    render();
  }

  function renderNotice() {
    const box = $("notice");
    const notice = view.notice;
    clearTimeout(noticeTimer);
    if (!notice && !view.refused) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    box.textContent = view.refused || notice.text;
    box.className = notice ? "notice-" + notice.kind : "notice-refused";
    if (notice && (notice.kind === "connected")) {
      noticeTimer = setTimeout(() => { box.hidden = true; }, 4000);
    }
    if (notice && !view.refused && notice.template && typeof notice.left === "number") {
      // The countdown to the forfeit, ticking between the program's notices (every 5 s).
      const end = Date.now() + notice.left * 1000;
      const tick = () => {
        const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
        box.textContent = notice.template.replace("{time}", clock(left));
        if (left > 0) noticeTimer = setTimeout(tick, 1000);
      };
      noticeTimer = setTimeout(tick, 1000);
    }
  }

  function clock(seconds) {
    return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  function renderSeats() {
    const seats = $("seats");
    seats.replaceChildren();
    if (view.me === null || view.me === undefined) return;
    view.names.forEach((name, seat) => {
      const box = el("div", "seat pos-" + position(seat));
      box.dataset.seat = String(seat);
      if (seat === view.turn) box.classList.add("turn");
      if (seat === view.me) box.classList.add("me");
      const head = el("div", "seat-name", name);
      if (seat === view.me) head.append(el("span", "you", " (" + hello.labels.you + ")"));
      box.append(head);
      const badges = el("div", "badges");
      if (seat === view.dealer) badges.append(el("span", "badge dealer", hello.labels.dealer));
      const bid = view.bids && view.bids[String(seat)];
      const contract = view.contract;
      if (contract && contract.taker === seat) badges.append(el("span", "badge taker", bid));
      else if (bid) badges.append(el("span", "badge bid", bid));
      if (contract && contract.partner === seat && contract.partner !== contract.taker) {
        badges.append(el("span", "badge partner", "★"));
      }
      box.append(badges);
      if (seat !== view.me && view.counts) {
        const fan = el("div", "backs");
        const n = view.counts[seat] || 0;
        for (let i = 0; i < Math.min(n, 8); i++) fan.append(backEl());
        if (n > 0) fan.append(el("span", "count", String(n))); // a bare "0" reads as a score
        box.append(fan);
      }
      const shown = (view.poignees || []).find((p) => p.seat === seat);
      if (shown) {
        const strip = el("div", "poignee");
        for (const c of shown.cards) strip.append(cardEl(c, "mini"));
        box.append(strip, el("div", "poignee-text", shown.text)); // the one a phone shows
        box.classList.add("shows");
      }
      seats.append(box);
    });
  }

  function renderCentre() {
    const centre = $("centre");
    centre.replaceChildren();
    centre.classList.remove("trick");
    if (held) {
      for (const p of held.cards) {
        const c = cardEl(p.card, "played at-" + position(p.seat));
        if (p.seat === held.winner) c.classList.add("winner");
        centre.append(c);
      }
      centre.append(el("div", "trick-caption", heldCaption()));
      centre.classList.add("trick");
      shownTrick = [];
      return;
    }
    if (!view.trick) return;
    const early = view.tricks.length === 0 && view.trick.length === 0;
    if (early && view.chien && view.chien.length) {
      const pile = el("div", "chien");
      pile.append(el("div", "caption", view.chien_caption));
      const row = el("div", "row");
      for (const c of view.chien) row.append(cardEl(c, "small"));
      pile.append(row);
      centre.append(pile);
    }
    if (early && view.ecart_shown && view.ecart_shown.length) {
      const pile = el("div", "chien");
      pile.append(el("div", "caption", hello.labels.ecart_shown));
      const row = el("div", "row");
      for (const c of view.ecart_shown) row.append(cardEl(c, "small"));
      pile.append(row);
      centre.append(pile);
    }
    if (early && view.ecart_mine && view.ecart_mine.length) {
      const pile = el("div", "chien ecart-mine");
      pile.append(el("div", "caption", hello.labels.ecart_mine));
      const row = el("div", "row");
      for (const c of view.ecart_mine) row.append(cardEl(c, "small"));
      pile.append(row);
      centre.append(pile);
    }
    const seen = new Set(shownTrick);
    shownTrick = view.trick.map((p) => p.card);
    for (const p of view.trick) {
      const fresh = seen.has(p.card) ? "" : " fresh";
      centre.append(cardEl(p.card, "played at-" + position(p.seat) + fresh));
    }
    const mine = playedCard();
    if (mine !== null) {
      centre.append(cardEl(mine, "played sent at-" + position(view.me)));
      shownTrick.push(mine);
    }
    centre.classList.toggle("trick", centre.querySelector(".played") !== null);
  }

  // The card this page played, while the table has not taken it yet (it is then shown in
  // the trick at once, out of the hand); null once the view shows it played, or when
  // the question it answered is over without it (refused: the hand shows it again).
  function playedCard() {
    if (!played) return null;
    const d = view.decision;
    if ((view.hand || []).includes(played.card) && (!d || d.serial === played.serial)) {
      return played.card;
    }
    played = null;
    return null;
  }

  function renderContract() {
    const box = $("contract");
    const contract = view.contract;
    $("table").classList.toggle("called", Boolean(contract && contract.called_text));
    if (!contract) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    box.replaceChildren(el("div", "contract-main", contract.text));
    if (contract.called_text) {
      const called = el("div", "called", contract.called_text);
      box.append(called);
      box.append(el("div", "partner-text", contract.partner_text));
    }
  }

  function renderPrompt() {
    const box = $("prompt");
    const decision = held ? null : view.decision;
    const answered = decision && sentSerial === decision.serial;
    if (why && (!decision || answered || decision.serial !== why.serial)) {
      clearTimeout(whyTimer);
      why = null;
    }
    // A grey card clicked: why it may not be played, in the prompt's place (just above
    // the hand, where it covers nothing), for a few seconds.
    const cardsOnly = decision && decision.kind === "play" && decision.options.length === 0;
    if (!decision || answered || (cardsOnly && !why)) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const text = el("p", "prompt-text", why ? why.text : decision.prompt);
    if (why) {
      text.id = "why";
      text.classList.add("why");
    }
    box.replaceChildren(text);
    if (cardsOnly) return;
    const row = el("div", "options");
    if (decision.kind === "ecart") {
      const chosen = el("div", "ecart-chosen");
      for (let i = 0; i < decision.need; i++) {
        const c = decision.chosen[i];
        chosen.append(c === undefined ? el("div", "slot") : cardEl(c, "small"));
      }
      box.append(chosen);
      const undo = el("button", "option", hello.labels.undo);
      undo.id = "ecart-undo";
      undo.disabled = decision.chosen.length === 0;
      undo.addEventListener("click", () => send({ t: "undo", serial: decision.serial }));
      const done = el("button", "option primary", hello.labels.done);
      done.id = "ecart-done";
      done.disabled = decision.chosen.length !== decision.need;
      done.addEventListener("click", () => {
        sentSerial = decision.serial;
        send({ t: "done", serial: decision.serial });
        render();
      });
      row.append(undo, done);
    } else {
      for (const option of decision.options) {
        const b = el("button", "option", option.label);
        b.type = "button";
        b.dataset.option = String(option.id);
        if (option.card !== undefined) b.prepend(cardEl(option.card, "small"));
        b.addEventListener("click", () => act(decision, option.id));
        row.append(b);
      }
    }
    box.append(row);
  }

  function act(decision, id) {
    if (sentSerial === decision.serial) return;
    sentSerial = decision.serial;
    send({ t: "act", serial: decision.serial, id });
    render(); // the answer shows at once: the prompt goes, a card played lies in the trick
  }

  // Every card of the hand takes the clicks on the part of it that shows (none lets a
  // click through to the card beneath): a card that may be played plays, any other says
  // why not. The arrows move a focus along the hand, Enter or Space plays the card.
  function renderHand() {
    const hand = $("hand");
    const hadFocus = hand.contains(document.activeElement);
    const decision = view.decision;
    const choosing = choosingCards(decision);
    const gone = playedCard();
    handCards = [];
    for (const c of view.hand || []) {
      if (c === gone) continue;
      const card = cardEl(c, "in-hand");
      card.tabIndex = -1;
      card.setAttribute("role", "button");
      if (choosing) {
        const legal = decision.cards[String(c)] !== undefined;
        card.classList.add(legal ? "legal" : "illegal");
        card.setAttribute("aria-disabled", String(!legal));
      }
      card.addEventListener("click", () => pick(card));
      handCards.push(card);
    }
    hand.classList.toggle("choosing", choosing);
    layoutHand();
    focusCard(focusAt, hadFocus);
  }

  function choosingCards(decision) {
    return Boolean(!held && decision && (decision.kind === "play" || decision.kind === "ecart")
      && sentSerial !== decision.serial);
  }

  function pick(card) {
    focusAt = Math.max(0, handCards.indexOf(card));
    if (held) {
      goOn(); // the click only ends the pause: a card is played on a question asked
      return;
    }
    const decision = view && view.decision;
    if (!choosingCards(decision)) return;
    const c = Number(card.dataset.card);
    const id = decision.cards[String(c)];
    if (id === undefined) {
      explain(card, (decision.why || {})[String(c)], decision.serial);
      return;
    }
    hideWhy();
    if (decision.kind === "ecart") {
      // Shown among the chosen cards at once; the next view confirms it. With every slot
      // filled (the view saying so may still be on its way) nothing more goes aside: the
      // card stayed out of the hand until the program's refusal put it back.
      const slot = document.querySelector("#prompt .ecart-chosen .slot");
      if (!slot) {
        explain(card, hello.labels.why_ecart_full, decision.serial);
        return;
      }
      slot.replaceWith(cardEl(c, "small"));
      const hadFocus = card === document.activeElement;
      handCards.splice(handCards.indexOf(card), 1);
      card.remove();
      layoutHand();
      focusCard(focusAt, hadFocus);
      send({ t: "card", serial: decision.serial, card: c });
    } else {
      played = { serial: decision.serial, card: c };
      act(decision, id);
    }
  }

  function explain(card, text, serial) {
    card.classList.remove("refused");
    void card.offsetWidth; // restart the shake
    card.classList.add("refused");
    if (!text) return;
    why = { serial, text };
    clearTimeout(whyTimer);
    whyTimer = setTimeout(hideWhy, 6000);
    renderPrompt();
  }

  function hideWhy() {
    clearTimeout(whyTimer);
    if (!why) return;
    why = null;
    if (view) renderPrompt();
  }

  function focusCard(i, take) {
    if (!handCards.length) return;
    focusAt = Math.min(Math.max(i, 0), handCards.length - 1);
    handCards.forEach((card, j) => { card.tabIndex = j === focusAt ? 0 : -1; });
    if (take) handCards[focusAt].focus({ preventScroll: true });
  }

  function handKey(e) {
    const i = handCards.indexOf(document.activeElement);
    if (i < 0) return;
    const rows = handPerRow < handCards.length;
    const moves = {
      ArrowLeft: i - 1,
      ArrowRight: i + 1,
      ArrowUp: rows ? i - handPerRow : i - 1,
      ArrowDown: rows ? i + handPerRow : i + 1,
      Home: 0,
      End: handCards.length - 1,
    };
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      pick(handCards[i]);
    } else if (e.key in moves) {
      e.preventDefault();
      focusCard(moves[e.key], true);
    }
  }

  // The hand in as few rows as leave every card a target of TARGET pixels: in a row each
  // card shows at least TARGET pixels of its width, and each row shows at least TARGET
  // pixels of the top of the row above it.
  function layoutHand() {
    const hand = $("hand");
    const n = handCards.length;
    const style = getComputedStyle(hand);
    const w = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--card-w"));
    const room = hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const most = Math.max(1, Math.floor((room - w) / TARGET) + 1);
    const rows = Math.max(1, Math.ceil(n / most));
    const perRow = Math.ceil(n / rows) || 1;
    const step = perRow > 1
      ? Math.max(TARGET, Math.min(Math.max(w * 0.7, TARGET), (room - w) / (perRow - 1)))
      : w;
    handPerRow = perRow;
    hand.style.setProperty("--step", step + "px");
    hand.style.setProperty("--row-show", Math.max(TARGET + 4, w * 0.66) + "px");
    hand.classList.toggle("rows", rows > 1);
    const lines = [];
    for (let r = 0; r < rows; r++) {
      const line = el("div", "hand-row");
      line.append(...handCards.slice(r * perRow, (r + 1) * perRow));
      lines.push(line);
    }
    hand.replaceChildren(...lines);
  }

  function renderLast() {
    const button = $("last-button");
    const tricks = view.tricks || [];
    button.hidden = tricks.length === 0;
    button.textContent = showLast ? hello.labels.hide : hello.labels.last_trick;
    const box = $("last");
    if (!showLast || tricks.length === 0) {
      box.hidden = true;
      return;
    }
    const last = tricks[tricks.length - 1];
    box.hidden = false;
    box.replaceChildren(el("div", "caption", hello.labels.last_trick + " — " + view.names[last.winner]));
    const spread = el("div", "last-spread");
    for (const p of last.cards) {
      const c = cardEl(p.card, "small at-" + position(p.seat));
      if (p.seat === last.winner) c.classList.add("winner");
      spread.append(c);
    }
    box.append(spread);
  }

  function renderLog() {
    const log = $("log");
    log.replaceChildren(...(view.log || []).map((line) => el("li", null, line)));
    log.scrollTop = log.scrollHeight;
  }

  function renderTricks() {
    const list = $("tricks");
    list.replaceChildren();
    for (const trick of (view.tricks || []).slice().reverse()) {
      const item = el("li", "trick-line");
      item.append(el("span", "trick-label", trick.number + ". " + view.names[trick.winner]));
      const row = el("span", "trick-cards");
      for (const p of trick.cards) {
        const c = cardEl(p.card, "mini");
        c.title = view.names[p.seat];
        if (p.seat === trick.winner) c.classList.add("winner");
        row.append(c);
      }
      item.append(row);
      list.append(item);
    }
  }

  function resultTable(result) {
    const box = el("div", "result");
    if (result.stand_in) {
      box.append(el("p", "result-stand-in-title", result.stand_in_title));
      box.append(el("p", "result-stand-in", result.stand_in));
    }
    box.append(el("p", "result-title" + (result.made === false ? " failed" : ""), result.title));
    if (result.rows.length) {
      const table = el("table", "rows");
      for (const row of result.rows) {
        const tr = el("tr");
        tr.append(el("th", null, row.label), el("td", null, row.value));
        table.append(tr);
      }
      box.append(table);
    }
    const players = el("table", "players");
    for (const p of result.players) {
      const tr = el("tr");
      const score = el("td", p.score > 0 ? "plus" : p.score < 0 ? "minus" : null, (p.score > 0 ? "+" : "") + p.score);
      tr.append(el("th", null, p.name), score);
      players.append(tr);
    }
    box.append(players);
    return box;
  }

  function renderResult() {
    const result = view.result;
    $("result-panel").hidden = !result;
    if (!result) return;
    $("result").replaceChildren(resultTable(result));
    if (result.hand !== resultSeen && !view.over) {
      resultSeen = result.hand;
      $("modal-result").replaceChildren(resultTable(result));
      $("score-modal").hidden = false;
    }
  }

  function sheetTable(sheet) {
    const wrap = el("div", "sheet");
    const table = el("table", "sheet-table");
    const head = el("tr");
    head.append(el("th", null, "#"));
    sheet.names.forEach((n, i) => {
      const th = el("th", null, n);
      th.style.setProperty("--colour", sheet.colours[i]);
      th.classList.add("player-col");
      head.append(th);
    });
    table.append(head);
    for (const line of sheet.lines) {
      const tr = el("tr");
      tr.title = line.note;
      tr.append(el("td", null, String(line.number)));
      for (const s of line.scores) tr.append(el("td", s.startsWith("-") ? "minus" : null, s));
      table.append(tr);
    }
    const total = el("tr", "total");
    total.append(el("td", null, hello.labels.total));
    for (const t of sheet.totals) total.append(el("td", t.startsWith("-") ? "minus" : null, t));
    table.append(total);
    wrap.append(table);
    if (sheet.chart) {
      const chart = el("div", "chart-box");
      chart.innerHTML = sheet.chart;
      wrap.append(chart);
    }
    return wrap;
  }

  function renderSheet() {
    const sheet = view.sheet;
    const shown = Boolean(sheet && sheet.lines.length);
    $("sheet-panel").hidden = !shown;
    if (shown) $("sheet").replaceChildren(sheetTable(sheet));
  }

  function renderTrust() {
    $("trust").replaceChildren(...(view.trust || []).map((line) => el("li", null, line)));
  }

  function renderOver() {
    const over = view.sheet && view.sheet.over;
    $("over").hidden = !over;
    if (!over) return;
    $("score-modal").hidden = true;
    $("over-text").textContent = view.sheet.over;
    const parts = [];
    if (view.result) parts.push(resultTable(view.result));
    parts.push(sheetTable(view.sheet));
    $("over-sheet").replaceChildren(...parts);
  }

  // Narrow screens: the side panels are tabs; one opens over the table, none at first.
  function renderTabs() {
    const open = document.body.dataset.tab;
    for (const tab of document.querySelectorAll("#tabs [data-panel]")) {
      const panel = $(tab.dataset.panel);
      tab.hidden = panel.hidden;
      const selected = tab.dataset.panel === open && !panel.hidden;
      tab.setAttribute("aria-selected", String(selected));
      panel.classList.toggle("open", selected);
    }
    if (open && $(open).hidden) delete document.body.dataset.tab;
  }

  function toggleTab(panel) {
    if (document.body.dataset.tab === panel) delete document.body.dataset.tab;
    else document.body.dataset.tab = panel;
    renderTabs();
  }

  window.addEventListener("resize", () => {
    if (view && !view.lobby) {
      const hadFocus = $("hand").contains(document.activeElement);
      layoutHand();
      focusCard(focusAt, hadFocus);
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    $("last-button").addEventListener("click", () => {
      showLast = !showLast;
      if (view) render();
    });
    $("modal-close").addEventListener("click", () => { $("score-modal").hidden = true; });
    $("table").addEventListener("click", goOn);
    $("room").addEventListener("scroll", notePinned, { passive: true });
    const sized = new ResizeObserver(keepToEnd);
    for (const id of ["room", "table", "hand-area"]) sized.observe($(id));
    $("hand").addEventListener("keydown", handKey);
    for (const tab of document.querySelectorAll("#tabs [data-panel]")) {
      tab.addEventListener("click", () => toggleTab(tab.dataset.panel));
    }
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && document.body.dataset.tab) toggleTab(document.body.dataset.tab);
    });
    $("copy").addEventListener("click", () => {
      if (navigator.clipboard) navigator.clipboard.writeText($("join-command").textContent);
    });
    $("quit").addEventListener("click", () => {
      quitting = true;
      send({ t: "quit" });
      $("quit").hidden = true;
      $("lobby").hidden = true;
      $("status").textContent = hello ? hello.labels.left_lobby : "";
    });
    $("leave").addEventListener("click", () => {
      leaving = true;
      send({ t: "leave" });
      $("over").hidden = true;
      $("status").textContent = hello ? hello.labels.left_table : "";
    });
    if (location.hash) history.replaceState(null, "", location.pathname); // an unused key
    connect();
  });
})();
