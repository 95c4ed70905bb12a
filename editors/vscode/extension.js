// Starts `runebook lsp` for .rules files and passes the editor's settings to it.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("runebook");
  const [command, ...args] = config.get("server.command", ["runebook", "lsp"]);
  const serverOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "runebook" }, { scheme: "untitled", language: "runebook" }],
    // A .rules file changed on disk is read again by the open documents of its game.
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.rules") },
    initializationOptions: {
      game: config.get("game") || null,
      actor: config.get("actor") || null,
      target: config.get("target") || null,
      oddsBudget: config.get("oddsBudget", 1),
    },
  };
  client = new LanguageClient("runebook", "Runebook", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
