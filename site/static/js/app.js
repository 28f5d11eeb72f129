// Studyloop web app: keyboard shortcuts for the practice page. Only an
// enhancement; every page works without it, and it is served from our own
// origin so that the strict Content-Security-Policy allows it.
(function () {
  "use strict";
  var practice = document.getElementById("practice");
  if (!practice) {
    return;
  }
  var state = practice.getAttribute("data-state");

  // A key pressed in a field or on a control belongs to it.
  function onControl(target) {
    return /^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/.test(target.tagName);
  }

  function click(el, event) {
    if (el) {
      event.preventDefault();
      el.click();
    }
  }

  if (state === "feedback") {
    // Enter or Space on the focused suggested rating chooses it.
    var suggested = document.querySelector("#rate .suggested");
    if (suggested) {
      suggested.focus();
    }
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) {
      return;
    }
    var typing = e.target.tagName === "TEXTAREA" || (e.target.tagName === "INPUT" && e.target.type !== "radio");
    if (typing) {
      return; // Enter in the answer box sends it, as without script
    }
    if (state === "question") {
      if (/^[1-9]$/.test(e.key)) {
        var choice = document.getElementById("choice-" + (Number(e.key) - 1));
        if (choice) {
          choice.checked = true;
          click(document.getElementById("check"), e);
        }
      } else if (e.key === " " && !onControl(e.target)) {
        click(document.getElementById("reveal"), e);
      }
    } else if (state === "feedback") {
      if (/^[1-4]$/.test(e.key)) {
        click(document.querySelector('#rate button[data-key="' + e.key + '"]'), e);
      } else if ((e.key === "Enter" || e.key === " ") && !onControl(e.target)) {
        click(document.querySelector("#rate .suggested"), e);
      }
    } else if ((e.key === "Enter" || e.key === " ") && !onControl(e.target)) {
      click(document.getElementById("next-due"), e);
    }
  });
})();
