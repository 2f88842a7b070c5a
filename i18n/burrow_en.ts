<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ArchiveService</name>
    <message numerus="yes">
        <source>Exporting %n conversation(s)…</source>
        <translation>
            <numerusform>Exporting %n conversation…</numerusform>
            <numerusform>Exporting %n conversations…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n conversation(s).</source>
        <translation>
            <numerusform>Imported %n conversation.</numerusform>
            <numerusform>Imported %n conversations.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n were already here and were skipped.</source>
        <translation>
            <numerusform>%n was already here and was skipped.</numerusform>
            <numerusform>%n were already here and were skipped.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConversationSidebar</name>
    <message numerus="yes">
        <source>%n chat(s) deleted.</source>
        <translation>
            <numerusform>%n chat deleted.</numerusform>
            <numerusform>%n chats deleted.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConversationStore</name>
    <message numerus="yes">
        <source>A damaged conversation database from before was kept as %1 (%n file(s) in all); Burrow deleted nothing. The conversations since then are here. Move it away once you no longer need it.</source>
        <translation>
            <numerusform>A damaged conversation database from before was kept as %1 (%n file in all); Burrow deleted nothing. The conversations since then are here. Move it away once you no longer need it.</numerusform>
            <numerusform>A damaged conversation database from before was kept as %1 (%n files in all); Burrow deleted nothing. The conversations since then are here. Move it away once you no longer need it.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DownloadManager</name>
    <message numerus="yes">
        <source>about %n minute(s) left</source>
        <translation>
            <numerusform>about %n minute left</numerusform>
            <numerusform>about %n minutes left</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message numerus="yes">
        <source>%n model(s) on this computer…</source>
        <translation>
            <numerusform>%n model on this computer…</numerusform>
            <numerusform>%n models on this computer…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HubClient</name>
    <message numerus="yes">
        <source>split into %n file(s); Burrow opens single-file models only</source>
        <translation>
            <numerusform>split into %n file; Burrow opens single-file models only</numerusform>
            <numerusform>split into %n files; Burrow opens single-file models only</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LibraryModel</name>
    <message numerus="yes">
        <source>Split into %n files; Burrow opens single-file models only.</source>
        <translation>
            <numerusform>Split into %n file; Burrow opens single-file models only.</numerusform>
            <numerusform>Split into %n files; Burrow opens single-file models only.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LocalServer</name>
    <message numerus="yes">
        <source>Server: %1 · %n client(s)</source>
        <translation>
            <numerusform>Server: %1 · %n client</numerusform>
            <numerusform>Server: %1 · %n clients</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>McpClient</name>
    <message numerus="yes">
        <source>[the result was cut here: it had %n characters]</source>
        <translation>
            <numerusform>[the result was cut here: it had %n character]</numerusform>
            <numerusform>[the result was cut here: it had %n characters]</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MessageModel</name>
    <message numerus="yes">
        <source>%n tokens · %1 tokens/s</source>
        <translation>
            <numerusform>%n token · %1 tokens/s</numerusform>
            <numerusform>%n tokens · %1 tokens/s</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelLibraryView</name>
    <message numerus="yes">
        <source>%n file(s) passed over (not GGUF models, or unreadable)</source>
        <translation>
            <numerusform>%n file passed over (not a GGUF model, or unreadable)</numerusform>
            <numerusform>%n files passed over (not GGUF models, or unreadable)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RemoteServers</name>
    <message numerus="yes">
        <source>%n model(s) (listed before)</source>
        <translation>
            <numerusform>%n model (listed before)</numerusform>
            <numerusform>%n models (listed before)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model(s)</source>
        <translation>
            <numerusform>%n model</numerusform>
            <numerusform>%n models</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ReplyStream</name>
    <message numerus="yes">
        <source>%n tokens at %1 tokens/s</source>
        <translation>
            <numerusform>%n token at %1 tokens/s</numerusform>
            <numerusform>%n tokens at %1 tokens/s</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolServers</name>
    <message numerus="yes">
        <source>%n tool(s)</source>
        <translation>
            <numerusform>%n tool</numerusform>
            <numerusform>%n tools</numerusform>
        </translation>
    </message>
</context>
</TS>
