<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_TW" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About Burrow</source>
        <translation>關於 Burrow</translation>
    </message>
    <message>
        <source>the window, the controls and the conversation database (Qt Quick, Qt SQL)</source>
        <translation>視窗、控制項和對話資料庫（Qt Quick、Qt SQL）</translation>
    </message>
    <message>
        <source>stores your conversations, through Qt SQL</source>
        <translation>透過 Qt SQL 儲存你的對話</translation>
    </message>
    <message>
        <source>reads and writes archives, in the burrow-archive helper</source>
        <translation>在 burrow-archive 輔助程式中讀寫封存檔</translation>
    </message>
    <message>
        <source>splits text into tokens by Unicode category</source>
        <translation>依 Unicode 字元類別將文字切分為詞元</translation>
    </message>
    <message>
        <source>Burrow %1</source>
        <translation>Burrow %1</translation>
    </message>
    <message>
        <source>Chat with language models that run on your own computer. Nothing you write leaves it.</source>
        <translation>與在你自己電腦上執行的語言模型對話。你寫下的任何內容都不會離開這台電腦。</translation>
    </message>
    <message>
        <source>Free software under the GNU General Public License, version 3 or any later version (%1). It comes with no warranty.</source>
        <translation>自由軟體，依據 GNU 通用公共授權條款第 3 版或（由你選擇）任何更新版本（%1）授權。本軟體不提供任何擔保。</translation>
    </message>
    <message>
        <source>The inference engine is Burrow&apos;s own, written from scratch for this app.</source>
        <translation>推論引擎是 Burrow 自己的，專為本應用程式從零開始撰寫。</translation>
    </message>
    <message>
        <source>Built with</source>
        <translation>建置所用的程式庫</translation>
    </message>
</context>
<context>
    <name>AccessToken</name>
    <message>
        <source>A token is saved in the system keychain.</source>
        <translation>已在系統鑰匙圈中儲存了一組權杖。</translation>
    </message>
    <message>
        <source>A token is saved in %1, which only you can read (no keychain service was available).</source>
        <translation>權杖已儲存在 %1，只有你能讀取（沒有可用的鑰匙圈服務）。</translation>
    </message>
    <message>
        <source>Paste a token first.</source>
        <translation>請先貼上權杖。</translation>
    </message>
    <message>
        <source>This is too long for an access token.</source>
        <translation>這對存取權杖來說太長了。</translation>
    </message>
    <message>
        <source>An access token has no spaces or special characters; paste it again.</source>
        <translation>存取權杖不含空格或特殊字元，請重新貼上。</translation>
    </message>
    <message>
        <source>cannot create the folder %1</source>
        <translation>無法建立資料夾 %1</translation>
    </message>
    <message>
        <source>The token could not be saved (%1); it is used until Burrow quits.</source>
        <translation>無法儲存權杖（%1）；在 Burrow 結束前仍會使用它。</translation>
    </message>
    <message>
        <source>The saved access token could not be read; save it again.</source>
        <translation>無法讀取已儲存的存取權杖，請重新儲存。</translation>
    </message>
    <message>
        <source>Could not read the access token from the system keychain: %1</source>
        <translation>無法從系統鑰匙圈讀取存取權杖：%1</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain, which this build of Burrow cannot read; save it again.</source>
        <translation>權杖存放在系統鑰匙圈中，但此版本的 Burrow 無法讀取，請重新儲存。</translation>
    </message>
</context>
<context>
    <name>AccessTokenDialog</name>
    <message>
        <source>Hugging Face access token</source>
        <translation>Hugging Face 存取權杖</translation>
    </message>
    <message>
        <source>Gated and private repositories need an access token: create a read token in your Hugging Face account (Settings → Access Tokens) and accept the model&apos;s license on its page. Burrow sends the token to the hub only, never to the servers the downloads come from.</source>
        <translation>受限儲存庫和私人儲存庫需要存取權杖：在你的 Hugging Face 帳號中建立一組唯讀權杖（Settings → Access Tokens），並在模型頁面上接受其授權條款。Burrow 只把權杖傳送給 Hub，絕不會傳送給提供下載的伺服器。</translation>
    </message>
    <message>
        <source>paste a new token to replace the saved one</source>
        <translation>貼上新權杖以取代已儲存的權杖</translation>
    </message>
    <message>
        <source>hf_…</source>
        <translation>hf_…</translation>
    </message>
    <message>
        <source>Access token</source>
        <translation>存取權杖</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>儲存</translation>
    </message>
    <message>
        <source>Save the access token</source>
        <translation>儲存存取權杖</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在儲存…</translation>
    </message>
    <message>
        <source>No token is saved.</source>
        <translation>尚未儲存權杖。</translation>
    </message>
    <message>
        <source>Remove the saved token</source>
        <translation>移除已儲存的權杖</translation>
    </message>
    <message>
        <source>Remove the saved access token</source>
        <translation>移除已儲存的存取權杖</translation>
    </message>
</context>
<context>
    <name>AppActions</name>
    <message>
        <source>&amp;Open model…</source>
        <translation>開啟模型(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>結束(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新對話(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Find a chat</source>
        <translation>尋找對話(&amp;F)</translation>
    </message>
    <message>
        <source>Chat s&amp;ettings…</source>
        <translation>對話設定(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Stop reply</source>
        <translation>停止回覆(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Regenerate reply</source>
        <translation>重新產生回覆(&amp;R)</translation>
    </message>
    <message>
        <source>C&amp;lear conversation</source>
        <translation>清除對話(&amp;L)</translation>
    </message>
    <message>
        <source>Settings for &amp;new chats…</source>
        <translation>新對話的設定(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;About Burrow</source>
        <translation>關於 Burrow(&amp;A)</translation>
    </message>
    <message>
        <source>Write a message</source>
        <translation>撰寫訊息</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>傳送</translation>
    </message>
    <message>
        <source>Local &amp;server…</source>
        <translation>本機伺服器(&amp;S)…</translation>
    </message>
    <message>
        <source>Model &amp;library…</source>
        <translation>模型庫(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Download a model…</source>
        <translation>下載模型(&amp;D)…</translation>
    </message>
    <message>
        <source>Hugging Face &amp;access token…</source>
        <translation>Hugging Face 存取權杖(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Undo delete</source>
        <translation>復原刪除(&amp;U)</translation>
    </message>
    <message>
        <source>Ser&amp;vers…</source>
        <translation>伺服器(&amp;V)…</translation>
    </message>
    <message>
        <source>&amp;Tools…</source>
        <translation>工具(&amp;T)…</translation>
    </message>
</context>
<context>
    <name>AppMenuBar</name>
    <message>
        <source>&amp;File</source>
        <translation>檔案(&amp;F)</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>開啟模型</translation>
    </message>
    <message>
        <source>Recent models</source>
        <translation>最近使用的模型</translation>
    </message>
    <message>
        <source>E&amp;xport this conversation…</source>
        <translation>匯出此對話(&amp;X)…</translation>
    </message>
    <message>
        <source>Export this conversation to a zip file</source>
        <translation>將此對話匯出為 zip 檔案</translation>
    </message>
    <message>
        <source>Export se&amp;lected conversations (%1)…</source>
        <translation>匯出所選的 %1 個對話(&amp;L)…</translation>
    </message>
    <message>
        <source>Export the %1 selected conversations to a zip file</source>
        <translation>將所選的 %1 個對話匯出為 zip 檔案</translation>
    </message>
    <message>
        <source>&amp;Export all conversations…</source>
        <translation>匯出所有對話(&amp;E)…</translation>
    </message>
    <message>
        <source>Export all conversations to a zip file</source>
        <translation>將所有對話匯出為 zip 檔案</translation>
    </message>
    <message>
        <source>&amp;Import conversations…</source>
        <translation>匯入對話(&amp;I)…</translation>
    </message>
    <message>
        <source>Import conversations from a Burrow export</source>
        <translation>從 Burrow 匯出檔案匯入對話</translation>
    </message>
    <message>
        <source>Quit Burrow</source>
        <translation>結束 Burrow</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>對話(&amp;C)</translation>
    </message>
    <message>
        <source>Start a new chat</source>
        <translation>開始新對話</translation>
    </message>
    <message>
        <source>Settings of this chat</source>
        <translation>此對話的設定</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回覆</translation>
    </message>
    <message>
        <source>Regenerate the last reply</source>
        <translation>重新產生最後一則回覆</translation>
    </message>
    <message>
        <source>Clear the conversation</source>
        <translation>清除對話</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>設定(&amp;S)</translation>
    </message>
    <message>
        <source>Settings new chats start with</source>
        <translation>新對話開始時使用的設定</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>說明(&amp;H)</translation>
    </message>
    <message>
        <source>About Burrow</source>
        <translation>關於 Burrow</translation>
    </message>
    <message>
        <source>Local server settings</source>
        <translation>本機伺服器設定</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>這台電腦上的模型</translation>
    </message>
    <message>
        <source>Download a model from the Hugging Face hub</source>
        <translation>從 Hugging Face Hub 下載模型</translation>
    </message>
    <message>
        <source>The Hugging Face access token for downloads</source>
        <translation>用於下載的 Hugging Face 存取權杖</translation>
    </message>
    <message>
        <source>Bring back the chat just deleted</source>
        <translation>還原剛刪除的對話</translation>
    </message>
    <message>
        <source>Servers whose models you can chat with</source>
        <translation>可以與其模型對話的伺服器</translation>
    </message>
    <message>
        <source>Tool servers the model may call</source>
        <translation>模型可以呼叫的工具伺服器</translation>
    </message>
</context>
<context>
    <name>ArchiveBar</name>
    <message>
        <source>Dismiss the archive message</source>
        <translation>關閉封存訊息</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>關閉</translation>
    </message>
    <message>
        <source>Cancel the archive job</source>
        <translation>取消封存工作</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Archive progress</source>
        <translation>封存進度</translation>
    </message>
</context>
<context>
    <name>ArchiveService</name>
    <message>
        <source>Burrow&apos;s archive helper (burrow-archive) is missing, so archives cannot be opened or written. Reinstalling Burrow puts it back.</source>
        <translation>找不到 Burrow 的封存輔助程式（burrow-archive），因此無法開啟或寫入封存檔。重新安裝 Burrow 即可恢復。</translation>
    </message>
    <message>
        <source>Another archive job is still running.</source>
        <translation>另一個封存工作仍在進行中。</translation>
    </message>
    <message>
        <source>The conversation database is not open.</source>
        <translation>對話資料庫尚未開啟。</translation>
    </message>
    <message>
        <source>Could not export: %1</source>
        <translation>無法匯出：%1</translation>
    </message>
    <message>
        <source>Exporting all conversations…</source>
        <translation>正在匯出所有對話…</translation>
    </message>
    <message numerus="yes">
        <source>Exporting %n conversation(s)…</source>
        <translation>
            <numerusform>正在匯出 %n 個對話…</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not import: no space for temporary files.</source>
        <translation>無法匯入：沒有空間存放暫存檔案。</translation>
    </message>
    <message>
        <source>Importing conversations…</source>
        <translation>正在匯入對話…</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>Cannot create the models folder %1.</source>
        <translation>無法建立模型資料夾 %1。</translation>
    </message>
    <message>
        <source>Not enough free disk space to unpack %1: it needs at least %2 MB, %3 MB are free.</source>
        <translation>磁碟空間不足，無法解壓縮 %1：至少需要 %2 MB，目前可用 %3 MB。</translation>
    </message>
    <message>
        <source>Cannot write into the models folder %1.</source>
        <translation>無法寫入模型資料夾 %1。</translation>
    </message>
    <message>
        <source>Unpacking %1…</source>
        <translation>正在解壓縮 %1…</translation>
    </message>
    <message>
        <source>Burrow&apos;s archive helper (burrow-archive) could not be started: %1. Reinstalling Burrow puts it back.</source>
        <translation>無法啟動 Burrow 的封存輔助程式（burrow-archive）：%1。重新安裝 Burrow 即可恢復。</translation>
    </message>
    <message>
        <source>Cancelled. Nothing was changed.</source>
        <translation>已取消，未做任何變更。</translation>
    </message>
    <message>
        <source>The archive helper stopped unexpectedly while reading %1; the archive may be damaged. Nothing was changed.</source>
        <translation>封存輔助程式在讀取 %1 時意外停止，該封存檔可能已損毀。未做任何變更。</translation>
    </message>
    <message>
        <source>The archive helper ended without an answer (exit code %1). Nothing was changed.</source>
        <translation>封存輔助程式未回傳結果就結束了（結束代碼 %1）。未做任何變更。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>無法寫入 %1：%2</translation>
    </message>
    <message>
        <source>%1 was not imported: %2</source>
        <translation>%1 未匯入：%2</translation>
    </message>
    <message>
        <source>%1 was not unpacked: %2</source>
        <translation>%1 未解壓縮：%2</translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation>已匯出至 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Imported %n conversation(s).</source>
        <translation>
            <numerusform>已匯入 %n 個對話。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n were already here and were skipped.</source>
        <translation>
            <numerusform>%n 個已存在，已略過。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 holds no .gguf model file.</source>
        <translation>%1 中沒有 .gguf 模型檔案。</translation>
    </message>
    <message>
        <source>%1 is already in the models folder.</source>
        <translation>%1 已在模型資料夾中。</translation>
    </message>
    <message>
        <source>Could not move the model into %1.</source>
        <translation>無法將模型移至 %1。</translation>
    </message>
    <message>
        <source>Unpacked %1.</source>
        <translation>已解壓縮 %1。</translation>
    </message>
    <message>
        <source>Could not export: no file was chosen.</source>
        <translation>無法匯出：未選擇檔案。</translation>
    </message>
    <message>
        <source>Could not import: no file was chosen.</source>
        <translation>無法匯入：未選擇檔案。</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <source>Dismiss</source>
        <translation>關閉</translation>
    </message>
    <message>
        <source>Dismiss this message</source>
        <translation>關閉此訊息</translation>
    </message>
</context>
<context>
    <name>ChatHeader</name>
    <message>
        <source>Continue with %1</source>
        <translation>繼續使用 %1</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>載入 %1</translation>
    </message>
    <message>
        <source>This chat was written with %1.</source>
        <translation>此對話使用 %1 寫成。</translation>
    </message>
    <message>
        <source>This chat was written with %1; %2 is loaded.</source>
        <translation>此對話使用 %1 寫成；目前載入的是 %2。</translation>
    </message>
    <message>
        <source>Sampling, reply length, context size and system prompt of this chat</source>
        <translation>此對話的取樣、回覆長度、上下文大小和系統提示詞</translation>
    </message>
    <message>
        <source>Settings of this chat</source>
        <translation>此對話的設定</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新對話</translation>
    </message>
    <message>
        <source>Show the conversations</source>
        <translation>顯示對話列表</translation>
    </message>
    <message>
        <source>Hide the conversations</source>
        <translation>隱藏對話列表</translation>
    </message>
    <message>
        <source>This chat was written with %1, which is not on this computer.</source>
        <translation>這個對話是用 %1 寫的，但這台電腦上沒有這個模型。</translation>
    </message>
</context>
<context>
    <name>ChatSettings</name>
    <message>
        <source>There is no setting called &quot;%1&quot;.</source>
        <translation>沒有名為「%1」的設定。</translation>
    </message>
    <message>
        <source>Enter a number.</source>
        <translation>請輸入數字。</translation>
    </message>
    <message>
        <source>Enter a whole number.</source>
        <translation>請輸入整數。</translation>
    </message>
    <message>
        <source>That number is far too large.</source>
        <translation>這個數字太大了。</translation>
    </message>
    <message>
        <source>Expected on or off.</source>
        <translation>應為開啟或關閉。</translation>
    </message>
    <message>
        <source>Expected text.</source>
        <translation>應為文字。</translation>
    </message>
    <message>
        <source>Temperature cannot be negative (0 always picks the most likely token).</source>
        <translation>溫度不能為負數（0 表示一律選擇可能性最高的詞元）。</translation>
    </message>
    <message>
        <source>Temperature must be at most %1.</source>
        <translation>溫度不能超過 %1。</translation>
    </message>
    <message>
        <source>Top-p must be greater than 0 and at most 1 (1 turns it off).</source>
        <translation>Top-p 必須大於 0 且不超過 1（1 表示關閉）。</translation>
    </message>
    <message>
        <source>Top-k cannot be negative (0 turns it off).</source>
        <translation>Top-k 不能為負數（0 表示關閉）。</translation>
    </message>
    <message>
        <source>Top-k must be at most %1.</source>
        <translation>Top-k 不能超過 %1。</translation>
    </message>
    <message>
        <source>Min-p must be between 0 and 1 (0 turns it off).</source>
        <translation>Min-p 必須介於 0 到 1 之間（0 表示關閉）。</translation>
    </message>
    <message>
        <source>The repeat penalty must be greater than 0 (1 turns it off).</source>
        <translation>重複懲罰必須大於 0（1 表示關閉）。</translation>
    </message>
    <message>
        <source>The repeat penalty must be at most %1.</source>
        <translation>重複懲罰不能超過 %1。</translation>
    </message>
    <message>
        <source>The repeat window must be 0 or more tokens (-1: the whole context).</source>
        <translation>重複偵測範圍必須為 0 個或更多詞元（-1：整個上下文）。</translation>
    </message>
    <message>
        <source>The repeat window must be at most %1 tokens.</source>
        <translation>重複偵測範圍不能超過 %1 個詞元。</translation>
    </message>
    <message>
        <source>The seed must be between 0 and %1.</source>
        <translation>種子必須介於 0 到 %1 之間。</translation>
    </message>
    <message>
        <source>The reply length must be at least 1 token (-1: no limit).</source>
        <translation>回覆長度至少為 1 個詞元（-1：不限制）。</translation>
    </message>
    <message>
        <source>The reply length must be at most %1 tokens.</source>
        <translation>回覆長度不能超過 %1 個詞元。</translation>
    </message>
    <message>
        <source>The context must hold at least %1 tokens.</source>
        <translation>上下文至少要容納 %1 個詞元。</translation>
    </message>
    <message>
        <source>This model was trained for at most %1 tokens of context.</source>
        <translation>此模型訓練時的上下文最多為 %1 個詞元。</translation>
    </message>
    <message>
        <source>Only about %1 tokens of context fit in the free memory.</source>
        <translation>可用記憶體只能容納約 %1 個詞元的上下文。</translation>
    </message>
    <message>
        <source>The context can hold at most %1 tokens.</source>
        <translation>上下文最多只能容納 %1 個詞元。</translation>
    </message>
    <message>
        <source>Expected the name of a chat format.</source>
        <translation>應為對話格式的名稱。</translation>
    </message>
    <message>
        <source>There is no chat format called &quot;%1&quot; (known: %2).</source>
        <translation>沒有名為「%1」的對話格式（可選：%2）。</translation>
    </message>
    <message>
        <source>Expected one of the listed choices.</source>
        <translation>請選擇列出的選項之一。</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>溫度</translation>
    </message>
    <message>
        <source>0 always picks the most likely word; higher values give more varied replies.</source>
        <translation>0 表示一律選擇可能性最高的詞；數值越高，回覆越多樣。</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>溫度 %1</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Keep the most likely words that together reach this probability (1: off).</source>
        <translation>保留可能性最高、累計機率達到此值的詞（1：關閉）。</translation>
    </message>
    <message>
        <source>top-p %1</source>
        <translation>top-p %1</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Keep only this many most likely words (0: off).</source>
        <translation>只保留這麼多個可能性最高的詞（0：關閉）。</translation>
    </message>
    <message>
        <source>top-k %1</source>
        <translation>top-k %1</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Drop words less likely than this share of the most likely one (0: off).</source>
        <translation>捨棄可能性低於最可能詞之此比例的詞（0：關閉）。</translation>
    </message>
    <message>
        <source>min-p %1</source>
        <translation>min-p %1</translation>
    </message>
    <message>
        <source>Repeat penalty</source>
        <translation>重複懲罰</translation>
    </message>
    <message>
        <source>Above 1 makes repeating recent words less likely (1: off).</source>
        <translation>大於 1 時，最近出現過的詞較不容易重複（1：關閉）。</translation>
    </message>
    <message>
        <source>repeat penalty %1</source>
        <translation>重複懲罰 %1</translation>
    </message>
    <message>
        <source>Repeat window</source>
        <translation>重複偵測範圍</translation>
    </message>
    <message>
        <source>How many recent tokens the penalty looks at (-1: the whole context).</source>
        <translation>重複懲罰檢查最近多少個詞元（-1：整個上下文）。</translation>
    </message>
    <message>
        <source>Random seed</source>
        <translation>隨機種子</translation>
    </message>
    <message>
        <source>A new random seed for each reply; off: the seed below, to repeat a reply exactly.</source>
        <translation>每次回覆使用新的隨機種子；關閉時使用下方的種子，可以完全重現一次回覆。</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>種子</translation>
    </message>
    <message>
        <source>The same seed and settings write the same reply again.</source>
        <translation>相同的種子與設定會再次寫出相同的回覆。</translation>
    </message>
    <message>
        <source>Maximum reply length</source>
        <translation>最大回覆長度</translation>
    </message>
    <message>
        <source>In tokens (-1: until the model stops).</source>
        <translation>以詞元計（-1：直到模型自行停止）。</translation>
    </message>
    <message>
        <source>Context size</source>
        <translation>上下文大小</translation>
    </message>
    <message>
        <source>context %1</source>
        <translation>上下文 %1</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系統提示詞</translation>
    </message>
    <message>
        <source>Instructions the model sees before the conversation</source>
        <translation>模型在對話開始前看到的指示</translation>
    </message>
    <message>
        <source>Chat format</source>
        <translation>對話格式</translation>
    </message>
    <message>
        <source>chat format %1</source>
        <translation>對話格式 %1</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>The model reasons before it answers (slower, often better); off: it answers at once.</source>
        <translation>模型先推理再回答（較慢，通常較好）；關閉時直接回答。</translation>
    </message>
    <message>
        <source>thinking %1</source>
        <translation>思考 %1</translation>
    </message>
    <message>
        <source>Reasoning effort</source>
        <translation>推理強度</translation>
    </message>
    <message>
        <source>How long the model reasons before it answers.</source>
        <translation>模型回答前推理多久。</translation>
    </message>
    <message>
        <source>reasoning effort %1</source>
        <translation>推理強度 %1</translation>
    </message>
    <message>
        <source>The reasoning effort is one of: %1.</source>
        <translation>推理強度只能是：%1。</translation>
    </message>
    <message>
        <source>Automatic (from the model)</source>
        <translation>自動（由模型決定）</translation>
    </message>
    <message>
        <source>Context memory</source>
        <translation>上下文記憶體</translation>
    </message>
    <message>
        <source>q8_0 keeps the context in 8 bits: half the memory, replies may differ slightly.</source>
        <translation>q8_0 以 8 位元儲存上下文：記憶體減半，回覆可能略有不同。</translation>
    </message>
    <message>
        <source>KV cache %1</source>
        <translation>KV 快取 %1</translation>
    </message>
    <message>
        <source>The context memory is one of: %1.</source>
        <translation>上下文記憶體只能是：%1。</translation>
    </message>
    <message>
        <source>How many tokens of the conversation the model sees (0: automatic, up to 4,096 as the model and the free memory allow).</source>
        <translation>模型能看到的對話詞元數（0：自動，在模型和可用記憶體允許的範圍內最多 4,096）。</translation>
    </message>
    <message>
        <source>When the context is full</source>
        <translation>上下文滿時</translation>
    </message>
    <message>
        <source>when full: %1</source>
        <translation>上下文滿時：%1</translation>
    </message>
    <message>
        <source>When the context is full, a reply does one of: %1.</source>
        <translation>上下文滿時，回覆只能是以下之一：%1。</translation>
    </message>
    <message>
        <source>stop: end the reply there; shift: forget the oldest messages (the system prompt and the first exchange stay) and go on.</source>
        <translation>停止：回覆到此結束；平移：忘掉最早的訊息（系統提示詞和第一輪問答保留）並繼續。</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>推測解碼</translation>
    </message>
    <message>
        <source>Guessed tokens are checked in one pass, so a reply can come faster; it says the same either way.</source>
        <translation>猜測的詞元在一次計算中得到檢驗，回覆可能更快；回覆內容不變。</translation>
    </message>
    <message>
        <source>drafting %1</source>
        <translation>推測 %1</translation>
    </message>
    <message>
        <source>Speculative decoding is one of: %1.</source>
        <translation>推測解碼只能是：%1。</translation>
    </message>
    <message>
        <source>Draft model</source>
        <translation>草稿模型</translation>
    </message>
    <message>
        <source>A smaller model with the same vocabulary that guesses the next tokens.</source>
        <translation>一個詞表相同的較小模型，用來猜測接下來的詞元。</translation>
    </message>
    <message>
        <source>The draft model is a file&apos;s full path.</source>
        <translation>草稿模型須為檔案的完整路徑。</translation>
    </message>
    <message>
        <source>%1 (not found)</source>
        <translation>%1（找不到）</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>The model may call the tools of Settings → Tools; you allow each call.</source>
        <translation>模型可以呼叫「設定 → 工具」中的工具；每次呼叫都由你允許。</translation>
    </message>
    <message>
        <source>tools %1</source>
        <translation>工具 %1</translation>
    </message>
</context>
<context>
    <name>ChatSettingsPanel</name>
    <message>
        <source>trained for %1</source>
        <translation>訓練上限 %1</translation>
    </message>
    <message>
        <source>about %1 fit in memory</source>
        <translation>記憶體約可容納 %1</translation>
    </message>
    <message>
        <source>This model: %1.</source>
        <translation>此模型：%1。</translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation>對話設定</translation>
    </message>
    <message>
        <source>Close chat settings</source>
        <translation>關閉對話設定</translation>
    </message>
    <message>
        <source>These settings belong to this chat only. Changes apply to the next reply. A dot marks a value that differs from the defaults for new chats.</source>
        <translation>這些設定只適用於目前的對話，變更會在下一則回覆時生效。圓點表示該值與新對話的預設值不同。</translation>
    </message>
    <message>
        <source>Reset all to defaults</source>
        <translation>全部重設為預設值</translation>
    </message>
    <message>
        <source>Use for new chats</source>
        <translation>套用至新對話</translation>
    </message>
    <message>
        <source>New chats will start with these settings</source>
        <translation>新對話將使用這些設定</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>High</source>
        <translation>高</translation>
    </message>
    <message>
        <source>Automatic uses the model&apos;s own chat template, else the chat format its vocabulary shows, else plain text. Choose a format if replies ramble or never stop.</source>
        <translation>「自動」使用模型內建的對話範本，沒有時使用其詞彙表顯示的對話格式，再沒有則使用純文字。如果回覆離題或停不下來，請選擇一種格式。</translation>
    </message>
    <message>
        <source>For this model, Automatic uses %1.</source>
        <translation>對於這個模型，「自動」使用%1。</translation>
    </message>
    <message>
        <source>Full (16-bit)</source>
        <translation>完整（16 位元）</translation>
    </message>
    <message>
        <source>Compact (8-bit, half the memory)</source>
        <translation>精簡（8 位元，記憶體減半）</translation>
    </message>
    <message>
        <source>New chats start with these settings; the chats you have keep their own. A dot marks a value that differs from Burrow&apos;s built-in settings.</source>
        <translation>新對話以這些設定開始，現有的對話保留各自的設定。圓點表示該值與 Burrow 的內建設定不同。</translation>
    </message>
    <message>
        <source>Shift: forget the oldest messages and go on</source>
        <translation>平移：忘掉最早的訊息並繼續</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回覆</translation>
    </message>
    <message>
        <source>This model cannot shift its context (it keeps a state of every token instead of keys and values): its replies stop when it is full.</source>
        <translation>這個模型不能平移上下文（它為每個詞元保存的是狀態，而不是鍵和值）：上下文滿時回覆就會停止。</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自動</translation>
    </message>
    <message>
        <source>Prompt lookup (n-gram)</source>
        <translation>提示查找（n-gram）</translation>
    </message>
    <message>
        <source>Draft model…</source>
        <translation>草稿模型…</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>關閉</translation>
    </message>
    <message>
        <source>Choose a draft model (Ctrl+L: type a path)</source>
        <translation>選擇草稿模型（Ctrl+L：輸入路徑）</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有檔案 (*)</translation>
    </message>
    <message>
        <source>Drafted by %1 (its weights, beside the model&apos;s). Choose “Draft model…” again for another file.</source>
        <translation>由 %1 起草（其權重，與模型並存於記憶體）。再次選擇「草稿模型…」可換用其他檔案。</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Conversation</source>
        <translation>對話</translation>
    </message>
    <message>
        <source>Scroll the conversation</source>
        <translation>捲動對話</translation>
    </message>
    <message>
        <source>Jump to latest</source>
        <translation>跳至最新</translation>
    </message>
    <message>
        <source>Jump to the latest message</source>
        <translation>跳至最新訊息</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>Copy</source>
        <translation>複製</translation>
    </message>
    <message>
        <source>Copy this code</source>
        <translation>複製這段程式碼</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>程式碼</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>No model yet: drop a .gguf file on this window or press Ctrl+O to open one.</source>
        <translation>尚未載入模型：將 .gguf 檔案拖放到此視窗，或按 Ctrl+O 開啟。</translation>
    </message>
    <message>
        <source>Write the beginning of a text; the model continues it. Enter sends, Shift+Enter adds a line.</source>
        <translation>寫下一段文字的開頭，模型會接著寫下去。按 Enter 傳送，Shift+Enter 換行。</translation>
    </message>
    <message>
        <source>Message the model. Enter sends, Shift+Enter adds a line.</source>
        <translation>傳訊息給模型。按 Enter 傳送，Shift+Enter 換行。</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>訊息</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>傳送</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回覆</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>傳送訊息</translation>
    </message>
</context>
<context>
    <name>Conversation</name>
    <message>
        <source>Burrow ended before the tool answered.</source>
        <translation>工具回答之前 Burrow 已結束。</translation>
    </message>
    <message>
        <source>The call was not run.</source>
        <translation>這次呼叫沒有執行。</translation>
    </message>
</context>
<context>
    <name>ConversationBundle</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation>無法寫入 %1：%2</translation>
    </message>
    <message>
        <source>conversation %1 does not exist</source>
        <translation>對話 %1 不存在</translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>無法建立 %1</translation>
    </message>
    <message>
        <source>This is not a Burrow export: it has no conversations.json.</source>
        <translation>這不是 Burrow 匯出的檔案：其中沒有 conversations.json。</translation>
    </message>
    <message>
        <source>conversations.json is larger than 512 MiB; refusing to read it.</source>
        <translation>conversations.json 超過 512 MiB，拒絕讀取。</translation>
    </message>
    <message>
        <source>Cannot read conversations.json: %1</source>
        <translation>無法讀取 conversations.json：%1</translation>
    </message>
    <message>
        <source>conversations.json is not valid JSON (%1 at byte %2).</source>
        <translation>conversations.json 不是有效的 JSON（第 %2 位元組處：%1）。</translation>
    </message>
    <message>
        <source>conversations.json is not a Burrow conversation export.</source>
        <translation>conversations.json 不是 Burrow 匯出的對話。</translation>
    </message>
    <message>
        <source>conversations.json has no valid format version.</source>
        <translation>conversations.json 沒有有效的格式版本。</translation>
    </message>
    <message>
        <source>This export was made by a newer Burrow (format version %1; this one reads up to %2).</source>
        <translation>此匯出檔案由較新版本的 Burrow 產生（格式版本 %1，本版本最高只能讀取 %2）。</translation>
    </message>
    <message>
        <source>conversations.json has no list of conversations.</source>
        <translation>conversations.json 中沒有對話清單。</translation>
    </message>
    <message>
        <source>Conversation %1</source>
        <translation>第 %1 個對話</translation>
    </message>
    <message>
        <source>%1 is not an object.</source>
        <translation>%1不是物件。</translation>
    </message>
    <message>
        <source>%1 has no list of messages.</source>
        <translation>%1沒有訊息清單。</translation>
    </message>
    <message>
        <source>%1, message %2: unknown role &quot;%3&quot;.</source>
        <translation>%1，第 %2 則訊息：未知角色「%3」。</translation>
    </message>
    <message>
        <source>%1, message %2: content is not text.</source>
        <translation>%1，第 %2 則訊息：內容不是文字。</translation>
    </message>
    <message>
        <source>The conversation database refused the import.</source>
        <translation>對話資料庫拒絕了這次匯入。</translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <source>generating a reply</source>
        <translation>正在產生回覆</translation>
    </message>
    <message>
        <source>New name for the chat</source>
        <translation>對話的新名稱</translation>
    </message>
    <message>
        <source>Writing a reply</source>
        <translation>正在寫回覆</translation>
    </message>
    <message>
        <source>Actions for %1</source>
        <translation>「%1」的動作</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重新命名</translation>
    </message>
    <message>
        <source>Export selected conversations (%1)…</source>
        <translation>匯出所選的 %1 個對話…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>刪除</translation>
    </message>
    <message>
        <source>Delete selected conversations (%1)</source>
        <translation>刪除所選的 %1 個對話</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>New chat</source>
        <translation>新對話</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
</context>
<context>
    <name>ConversationSidebar</name>
    <message>
        <source>New chat</source>
        <translation>新對話</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>開始新對話（Ctrl+N）</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜尋對話</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>對話</translation>
    </message>
    <message>
        <source>No chat contains “%1”.</source>
        <translation>沒有對話包含「%1」。</translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation>還沒有對話。</translation>
    </message>
    <message>
        <source>Chat deleted.</source>
        <translation>對話已刪除。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>復原</translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation>復原刪除</translation>
    </message>
    <message numerus="yes">
        <source>%n chat(s) deleted.</source>
        <translation>
            <numerusform>已刪除 %n 個對話。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConversationStore</name>
    <message>
        <source>Could not %1 in the conversation database</source>
        <translation>對話資料庫操作失敗（%1）</translation>
    </message>
    <message>
        <source>the file is damaged: %1</source>
        <translation>檔案已損毀：%1</translation>
    </message>
    <message>
        <source>it holds tables but no Burrow schema version</source>
        <translation>其中有資料表，但沒有 Burrow 的結構版本</translation>
    </message>
    <message>
        <source>it was written by a newer version of Burrow (schema %1, this version reads up to %2)</source>
        <translation>它由較新版本的 Burrow 寫入（結構版本 %1，本版本最高只能讀取 %2）</translation>
    </message>
    <message>
        <source>the conversation tables are missing</source>
        <translation>缺少對話資料表</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1</source>
        <translation>無法開啟你的對話：%1</translation>
    </message>
    <message>
        <source>Could not create the folder for conversations %1</source>
        <translation>無法建立對話資料夾 %1</translation>
    </message>
    <message>
        <source>Your conversations could not be opened because %1. Nothing was changed; start the newer version of Burrow to see them.</source>
        <translation>無法開啟你的對話，因為%1。未做任何變更；請啟動較新版本的 Burrow 來檢視這些對話。</translation>
    </message>
    <message>
        <source>Could not open the conversation database</source>
        <translation>無法開啟對話資料庫</translation>
    </message>
    <message>
        <source>The conversation database %1 cannot be read (%2) and could not be moved aside. Nothing was deleted; close Burrow and move the file away yourself.</source>
        <translation>無法讀取對話資料庫 %1（%2），也無法將其移到一旁。沒有刪除任何內容；請關閉 Burrow，然後自行移走該檔案。</translation>
    </message>
    <message>
        <source>The conversation database could not be read (%1). It was kept as %2 and a new, empty one was started.</source>
        <translation>無法讀取對話資料庫（%1）。原檔案已保留為 %2，並建立了一個新的空白資料庫。</translation>
    </message>
    <message>
        <source>Could not back up the conversation database before upgrading it; nothing was changed</source>
        <translation>升級前無法備份對話資料庫；未做任何變更</translation>
    </message>
    <message>
        <source>Could not upgrade the conversation database</source>
        <translation>無法升級對話資料庫</translation>
    </message>
    <message>
        <source>Could not upgrade the conversation database to version %1</source>
        <translation>無法將對話資料庫升級至版本 %1</translation>
    </message>
    <message>
        <source>The conversation database is not open</source>
        <translation>對話資料庫尚未開啟</translation>
    </message>
    <message>
        <source>Could not create a conversation</source>
        <translation>無法建立對話</translation>
    </message>
    <message>
        <source>there is no conversation %1</source>
        <translation>不存在對話 %1</translation>
    </message>
    <message>
        <source>Could not rename the conversation</source>
        <translation>無法重新命名對話</translation>
    </message>
    <message>
        <source>Could not store the conversation&apos;s model</source>
        <translation>無法儲存對話所用的模型</translation>
    </message>
    <message>
        <source>Could not store the conversation&apos;s settings</source>
        <translation>無法儲存對話的設定</translation>
    </message>
    <message>
        <source>Could not delete the conversation</source>
        <translation>無法刪除對話</translation>
    </message>
    <message>
        <source>Could not restore the conversation</source>
        <translation>無法還原對話</translation>
    </message>
    <message>
        <source>Could not delete the conversation for good (only deleted conversations can be)</source>
        <translation>無法永久刪除對話（只有已刪除的對話才能永久刪除）</translation>
    </message>
    <message>
        <source>Could not empty the deleted conversations</source>
        <translation>無法清空已刪除的對話</translation>
    </message>
    <message>
        <source>Could not save the reply</source>
        <translation>無法儲存回覆</translation>
    </message>
    <message>
        <source>message %1 is not a streaming reply</source>
        <translation>訊息 %1 不是正在產生的回覆</translation>
    </message>
    <message>
        <source>%1 is not a final state</source>
        <translation>%1 不是最終狀態</translation>
    </message>
    <message>
        <source>there is no message %1</source>
        <translation>不存在訊息 %1</translation>
    </message>
    <message>
        <source>Could not save the edited message</source>
        <translation>無法儲存編輯後的訊息</translation>
    </message>
    <message>
        <source>message %1 does not exist or is still streaming</source>
        <translation>訊息 %1 不存在或仍在產生中</translation>
    </message>
    <message>
        <source>Could not remove the messages</source>
        <translation>無法移除這些訊息</translation>
    </message>
    <message>
        <source>message %1 is not in conversation %2</source>
        <translation>訊息 %1 不在對話 %2 中</translation>
    </message>
    <message>
        <source>message %1 is not a reply</source>
        <translation>訊息 %1 不是回覆</translation>
    </message>
    <message>
        <source>Could not save which conversation is shown</source>
        <translation>無法儲存目前顯示的對話</translation>
    </message>
    <message>
        <source>it cannot be switched to WAL mode</source>
        <translation>無法切換到 WAL 模式</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1 (%2). Burrow left it alone; close the other program (or the other Burrow) and start Burrow again.</source>
        <translation>無法開啟你的對話：%1（%2）。Burrow 沒有動這個檔案；請關閉另一個程式（或另一個 Burrow），然後重新啟動 Burrow。</translation>
    </message>
    <message>
        <source>The disk holding your conversations is full (%1). They are shown, but nothing new can be saved until there is room; the file was left as it is.</source>
        <translation>存放你的對話的磁碟已滿（%1）。對話照常顯示，但在騰出空間之前無法儲存任何新內容；檔案保持原樣。</translation>
    </message>
    <message>
        <source>Burrow cannot write to %1 (%2). Your conversations are shown, but nothing new will be saved until it can; the file was left as it is.</source>
        <translation>Burrow 無法寫入 %1（%2）。你的對話照常顯示，但在可以寫入之前不會儲存任何新內容；檔案保持原樣。</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1 (%2). Nothing was changed, and nothing new will be saved. If this stays after a restart, move the file away: Burrow then starts a new one.</source>
        <translation>無法開啟你的對話：%1（%2）。沒有做任何變更，也不會儲存任何新內容。如果重新啟動後仍然如此，請把該檔案移走：Burrow 隨後會建立一個新的。</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1 (%2). Nothing was changed.</source>
        <translation>無法開啟你的對話：%1（%2）。沒有做任何變更。</translation>
    </message>
    <message numerus="yes">
        <source>A damaged conversation database from before was kept as %1 (%n file(s) in all); Burrow deleted nothing. The conversations since then are here. Move it away once you no longer need it.</source>
        <translation>
            <numerusform>先前損壞的對話資料庫已保留為 %1（共 %n 個檔案）；Burrow 沒有刪除任何內容。此後的對話都在這裡。不再需要時請把它移走。</numerusform>
        </translation>
    </message>
    <message>
        <source>Your message could not be saved, so it was not sent</source>
        <translation>無法儲存你的訊息，因此沒有送出</translation>
    </message>
    <message>
        <source>The reply could not be saved (your message was saved; the reply was not)</source>
        <translation>無法儲存回覆（你的訊息已儲存；回覆沒有儲存）</translation>
    </message>
    <message>
        <source>Could not save the message</source>
        <translation>無法儲存訊息</translation>
    </message>
    <message>
        <source>The reply could not be saved as it was written (your message and the reply&apos;s earlier part were saved; the rest was not)</source>
        <translation>回覆在產生過程中無法儲存（你的訊息和回覆的前面部分已儲存；其餘部分沒有儲存）</translation>
    </message>
    <message>
        <source>The finished reply could not be saved (your message and the reply&apos;s earlier part were saved; its end was not)</source>
        <translation>無法儲存完成的回覆（你的訊息和回覆的前面部分已儲存；結尾部分沒有儲存）</translation>
    </message>
    <message>
        <source>the file is damaged (%1)</source>
        <translation>檔案已損壞（%1）</translation>
    </message>
    <message>
        <source>another program is using the file (%1)</source>
        <translation>另一個程式正在使用該檔案（%1）</translation>
    </message>
    <message>
        <source>the disk is full (%1)</source>
        <translation>磁碟已滿（%1）</translation>
    </message>
    <message>
        <source>the file or its folder cannot be written to (%1)</source>
        <translation>無法寫入該檔案或其所在資料夾（%1）</translation>
    </message>
    <message>
        <source>the file or its folder cannot be opened (%1)</source>
        <translation>無法開啟該檔案或其所在資料夾（%1）</translation>
    </message>
    <message>
        <source>the conversation database is damaged</source>
        <translation>對話資料庫已損壞</translation>
    </message>
    <message>
        <source>another program is using the conversation database</source>
        <translation>另一個程式正在使用對話資料庫</translation>
    </message>
    <message>
        <source>the disk is full</source>
        <translation>磁碟已滿</translation>
    </message>
    <message>
        <source>the conversation database cannot be written to</source>
        <translation>無法寫入對話資料庫</translation>
    </message>
    <message>
        <source>the conversation database cannot be opened</source>
        <translation>無法開啟對話資料庫</translation>
    </message>
    <message>
        <source>the conversation database refused it</source>
        <translation>對話資料庫拒絕了寫入</translation>
    </message>
    <message>
        <source>%1 of %2 drafts accepted</source>
        <translation>%2 個草稿中接受了 %1 個</translation>
    </message>
</context>
<context>
    <name>DataFolder</name>
    <message>
        <source>Burrow now keeps its data in %1. Some files of the old folder %2 were not moved (%3); nothing was deleted.</source>
        <translation>Burrow 現在將資料儲存在 %1。舊資料夾 %2 中有些檔案沒有移動（%3）；沒有刪除任何檔案。</translation>
    </message>
</context>
<context>
    <name>DownloadDialog</name>
    <message>
        <source>Download a model</source>
        <translation>下載模型</translation>
    </message>
    <message>
        <source>Paste a repository id or a link from the Hugging Face hub. Burrow goes online only to list its files and to download the one you choose.</source>
        <translation>貼上 Hugging Face Hub 上的儲存庫 ID 或連結。Burrow 只在列出檔案和下載你選擇的檔案時連線。</translation>
    </message>
    <message>
        <source>organisation/name, e.g. Qwen/Qwen2.5-0.5B-Instruct-GGUF</source>
        <translation>組織/名稱，例如 Qwen/Qwen2.5-0.5B-Instruct-GGUF</translation>
    </message>
    <message>
        <source>Repository id or link</source>
        <translation>儲存庫 ID 或連結</translation>
    </message>
    <message>
        <source>List files</source>
        <translation>列出檔案</translation>
    </message>
    <message>
        <source>List the GGUF files of this repository</source>
        <translation>列出此儲存庫中的 GGUF 檔案</translation>
    </message>
    <message>
        <source>Listing the files</source>
        <translation>正在列出檔案</translation>
    </message>
    <message>
        <source>GGUF files of %1 (%2)</source>
        <translation>%1 的 GGUF 檔案（%2）</translation>
    </message>
    <message>
        <source>Files of the repository</source>
        <translation>儲存庫中的檔案</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>位於 %1</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下載</translation>
    </message>
    <message>
        <source>Download the chosen file</source>
        <translation>下載所選檔案</translation>
    </message>
    <message>
        <source>Access token (set)…</source>
        <translation>存取權杖（已設定）…</translation>
    </message>
    <message>
        <source>Access token…</source>
        <translation>存取權杖…</translation>
    </message>
    <message>
        <source>The Hugging Face access token, for gated and private repositories</source>
        <translation>Hugging Face 存取權杖，用於受限儲存庫和私人儲存庫</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下載</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Download progress</source>
        <translation>下載進度</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暫停</translation>
    </message>
    <message>
        <source>Pause the download of %1</source>
        <translation>暫停下載 %1</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重試</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>繼續</translation>
    </message>
    <message>
        <source>Resume the download of %1</source>
        <translation>繼續下載 %1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel the download of %1 and delete what was downloaded</source>
        <translation>取消下載 %1 並刪除已下載的部分</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>開啟</translation>
    </message>
    <message>
        <source>Open %1 and chat with it</source>
        <translation>開啟 %1 並與它對話</translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation>從清單中移除</translation>
    </message>
    <message>
        <source>Remove %1 from this list (the file stays)</source>
        <translation>從清單中移除 %1（檔案保留）</translation>
    </message>
    <message>
        <source>Downloads are saved in %1</source>
        <translation>下載的檔案儲存在 %1</translation>
    </message>
</context>
<context>
    <name>DownloadList</name>
    <message>
        <source>Starting…</source>
        <translation>正在開始…</translation>
    </message>
    <message>
        <source>Checking the part downloaded before…</source>
        <translation>正在檢查先前下載的部分…</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下載</translation>
    </message>
    <message>
        <source>Checking the file…</source>
        <translation>正在檢查檔案…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暫停</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Downloaded and checked</source>
        <translation>已下載並檢查</translation>
    </message>
</context>
<context>
    <name>DownloadManager</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>This is no file of a repository on the hub.</source>
        <translation>這不是 Hub 上某個儲存庫中的檔案。</translation>
    </message>
    <message>
        <source>%1 cannot be saved under its name: Burrow downloads .gguf files with plain names only.</source>
        <translation>無法以原名儲存 %1：Burrow 只下載名稱一般的 .gguf 檔案。</translation>
    </message>
    <message>
        <source>%1 is one part of a split model; Burrow opens single-file models only.</source>
        <translation>%1 是分割模型的一部分；Burrow 只能開啟單一檔案的模型。</translation>
    </message>
    <message>
        <source>%1 is already in the list of downloads.</source>
        <translation>%1 已在下載清單中。</translation>
    </message>
    <message>
        <source>%1 is already in the models folder (%2).</source>
        <translation>%1 已在模型資料夾中（%2）。</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/秒</translation>
    </message>
    <message>
        <source>less than a minute left</source>
        <translation>剩餘不到一分鐘</translation>
    </message>
    <message numerus="yes">
        <source>about %n minute(s) left</source>
        <translation>
            <numerusform>大約還剩 %n 分鐘</numerusform>
        </translation>
    </message>
    <message>
        <source>about %1 h %2 min left</source>
        <translation>大約還剩 %1 小時 %2 分鐘</translation>
    </message>
</context>
<context>
    <name>DownloadWorker</name>
    <message>
        <source>This download names no valid file on the hub.</source>
        <translation>此下載未指向 Hub 上的有效檔案。</translation>
    </message>
    <message>
        <source>Cannot create the models folder %1.</source>
        <translation>無法建立模型資料夾 %1。</translation>
    </message>
    <message>
        <source>%1 is a link, not a file Burrow wrote; remove it and try again.</source>
        <translation>%1 是一個連結，不是 Burrow 寫入的檔案；請刪除它後重試。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>無法寫入 %1：%2</translation>
    </message>
    <message>
        <source>Not enough free space in %1: %2 needs %3 more, and %4 is free.</source>
        <translation>%1 的可用空間不足：%2 還需要 %3，而只有 %4 可用。</translation>
    </message>
    <message>
        <source>The hub gives %1 a size of %2, but its list of files said %3; try again.</source>
        <translation>Hub 給出的 %1 大小為 %2，但其檔案清單中是 %3；請重試。</translation>
    </message>
    <message>
        <source>The server sent another part of %1 than the one asked for.</source>
        <translation>伺服器傳送的 %1 部分與要求的不同。</translation>
    </message>
    <message>
        <source>The server sends %1 with a size of %2, but the hub said %3; try again.</source>
        <translation>伺服器傳送的 %1 大小為 %2，但 Hub 給出的是 %3；請重試。</translation>
    </message>
    <message>
        <source>The hub gives no checksum for %1, so Burrow could not check it; nothing was downloaded.</source>
        <translation>Hub 沒有提供 %1 的檢查碼，Burrow 無法檢查它；未下載任何內容。</translation>
    </message>
    <message>
        <source>The server sent more than the %1 of %2; the download was stopped.</source>
        <translation>伺服器傳送的資料超過了 %2 的 %1；下載已停止。</translation>
    </message>
    <message>
        <source>The disk is full: %1 could not be written (%2 free). The part downloaded so far is kept; free some space and resume.</source>
        <translation>磁碟已滿：無法寫入 %1（可用 %2）。已下載的部分會保留；請釋出一些空間後繼續。</translation>
    </message>
    <message>
        <source>Could not write %1: %2. The part downloaded so far is kept; resume when the problem is solved.</source>
        <translation>無法寫入 %1：%2。已下載的部分會保留；問題解決後請繼續。</translation>
    </message>
    <message>
        <source>The hub redirected the download of %1 too many times.</source>
        <translation>Hub 對 %1 的下載重新導向次數過多。</translation>
    </message>
    <message>
        <source>The hub redirected the download of %1 to an address Burrow does not follow.</source>
        <translation>Hub 把 %1 的下載重新導向到了 Burrow 不會存取的位址。</translation>
    </message>
    <message>
        <source>The download of %1 was redirected to an insecure (http) address; it was stopped.</source>
        <translation>%1 的下載被重新導向到不安全的（http）位址，已停止。</translation>
    </message>
    <message>
        <source>The server answered the download of %1 with the unexpected status %2.</source>
        <translation>伺服器對 %1 的下載傳回了意外的狀態 %2。</translation>
    </message>
    <message>
        <source>%1 The part downloaded so far (%2) is kept; Resume continues from there.</source>
        <translation>%1 已下載的部分（%2）會保留；按「繼續」將從那裡接著下載。</translation>
    </message>
    <message>
        <source>The downloaded %1 does not match the checksum the hub gives for it (%2), so it was not kept. Try again; if this repeats, the file on the hub may be damaged.</source>
        <translation>下載的 %1 與 Hub 給出的檢查碼（%2）不符，因此未保留。請重試；如果再次出現，Hub 上的檔案可能已損壞。</translation>
    </message>
    <message>
        <source>The download of %1 is complete and checked, but it could not be renamed to %2.</source>
        <translation>%1 已下載完成並通過檢查，但無法重新命名為 %2。</translation>
    </message>
</context>
<context>
    <name>DropOverlay</name>
    <message>
        <source>Drop to open this model</source>
        <translation>放開滑鼠即可開啟此模型</translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <source>Drop a .gguf model here, or open one</source>
        <translation>將 .gguf 模型拖放到這裡，或開啟一個模型</translation>
    </message>
    <message>
        <source>Everything runs on this computer. Nothing leaves it.</source>
        <translation>一切都在這台電腦上執行，任何資料都不會離開它。</translation>
    </message>
    <message>
        <source>Open model…</source>
        <translation>開啟模型…</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>開啟模型檔案</translation>
    </message>
    <message>
        <source>Recent models</source>
        <translation>最近使用的模型</translation>
    </message>
    <message>
        <source>Open recent model %1</source>
        <translation>開啟最近使用的模型 %1</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) on this computer…</source>
        <translation>
            <numerusform>這台電腦上有 %n 個模型…</numerusform>
        </translation>
    </message>
    <message>
        <source>Model library…</source>
        <translation>模型庫…</translation>
    </message>
    <message>
        <source>Show the models on this computer</source>
        <translation>顯示這台電腦上的模型</translation>
    </message>
    <message>
        <source>Download a model…</source>
        <translation>下載模型…</translation>
    </message>
    <message>
        <source>Download a model from the Hugging Face hub</source>
        <translation>從 Hugging Face Hub 下載模型</translation>
    </message>
</context>
<context>
    <name>EngineBackend</name>
    <message>
        <source>No model is loaded.</source>
        <translation>尚未載入模型。</translation>
    </message>
    <message>
        <source>The conversation cannot be written for this model: %1</source>
        <translation>無法為這個模型寫出這段對話：%1</translation>
    </message>
    <message>
        <source>it starts when a model is loaded</source>
        <translation>載入模型後啟動</translation>
    </message>
    <message>
        <source>port %1 is in use by another program; choose another port in Settings → Local server</source>
        <translation>連接埠 %1 已被其他程式使用；請在「設定 → 本機伺服器」中選擇其他連接埠</translation>
    </message>
    <message>
        <source>it cannot start: %1</source>
        <translation>無法啟動：%1</translation>
    </message>
    <message>
        <source>it stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>The context memory cannot be %1 for this model: %2</source>
        <translation>此模型的上下文記憶體不能為 %1：%2</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <source>Loading was cancelled.</source>
        <translation>已取消載入。</translation>
    </message>
</context>
<context>
    <name>ExportPaths</name>
    <message>
        <source>Burrow conversations %1</source>
        <translation>Burrow 對話 %1</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>對話</translation>
    </message>
</context>
<context>
    <name>FileDialog</name>
    <message>
        <source>File name</source>
        <translation>檔案名稱</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>篩選</translation>
    </message>
</context>
<context>
    <name>HubClient</name>
    <message>
        <source>The hub&apos;s list of files for %1 is too long to read.</source>
        <translation>Hub 上 %1 的檔案清單太長，無法讀取。</translation>
    </message>
    <message>
        <source>The hub&apos;s answer for %1 could not be read: %2</source>
        <translation>無法讀取 Hub 對 %1 的回應：%2</translation>
    </message>
    <message>
        <source>%1 has no GGUF files. Burrow runs GGUF models: look for a repository whose name ends in -GGUF.</source>
        <translation>%1 中沒有 GGUF 檔案。Burrow 執行 GGUF 模型：請找名稱以 -GGUF 結尾的儲存庫。</translation>
    </message>
    <message>
        <source>not a list of files</source>
        <translation>不是檔案清單</translation>
    </message>
    <message>
        <source>a vision projector that goes with a model, not a chat model by itself</source>
        <translation>搭配模型使用的視覺投影器，本身不是對話模型</translation>
    </message>
    <message>
        <source>this file name cannot be saved safely</source>
        <translation>此檔名無法安全儲存</translation>
    </message>
    <message>
        <source>unknown size</source>
        <translation>大小未知</translation>
    </message>
    <message numerus="yes">
        <source>split into %n file(s); Burrow opens single-file models only</source>
        <translation>
            <numerusform>分割為 %n 個檔案；Burrow 只能開啟單一檔案的模型</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HubProtocol</name>
    <message>
        <source>Paste a repository id (organisation/name) or a link to a model on the Hugging Face hub.</source>
        <translation>請貼上儲存庫 ID（組織/名稱）或 Hugging Face Hub 上模型的連結。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a repository id: write it as organisation/name, for example Qwen/Qwen2.5-0.5B-Instruct-GGUF.</source>
        <translation>「%1」不是儲存庫 ID：請寫成 組織/名稱，例如 Qwen/Qwen2.5-0.5B-Instruct-GGUF。</translation>
    </message>
    <message>
        <source>Only links to the Hugging Face hub (huggingface.co) can be downloaded from.</source>
        <translation>只能從 Hugging Face Hub（huggingface.co）的連結下載。</translation>
    </message>
    <message>
        <source>This is a link to a dataset or a space; Burrow downloads models.</source>
        <translation>這是資料集或 Space 的連結；Burrow 只下載模型。</translation>
    </message>
    <message>
        <source>This link does not name a model repository (organisation/name).</source>
        <translation>此連結沒有指向模型儲存庫（組織/名稱）。</translation>
    </message>
    <message>
        <source>This link names no valid revision.</source>
        <translation>此連結中的版本無效。</translation>
    </message>
    <message>
        <source>This link names no valid file.</source>
        <translation>此連結中的檔案無效。</translation>
    </message>
    <message>
        <source>32-bit: the original weights, very large</source>
        <translation>32 位元：原始權重，非常大</translation>
    </message>
    <message>
        <source>16-bit: full quality, large</source>
        <translation>16 位元：完整品質，較大</translation>
    </message>
    <message>
        <source>8-bit: close to the original, large</source>
        <translation>8 位元：接近原始品質，較大</translation>
    </message>
    <message>
        <source>6-bit: near the original quality</source>
        <translation>6 位元：接近原始品質</translation>
    </message>
    <message>
        <source>5-bit: high quality</source>
        <translation>5 位元：高品質</translation>
    </message>
    <message>
        <source>4-bit: a good balance of size and quality</source>
        <translation>4 位元：大小與品質的良好平衡</translation>
    </message>
    <message>
        <source>3-bit: smaller, lower quality</source>
        <translation>3 位元：更小，品質較低</translation>
    </message>
    <message>
        <source>2-bit or less: the smallest, the lowest quality</source>
        <translation>2 位元或更低：最小，品質最低</translation>
    </message>
    <message>
        <source>The hub refused the access token. Check it, or remove it, under Access token.</source>
        <translation>Hub 拒絕了存取權杖。請在「存取權杖」中檢查或移除它。</translation>
    </message>
    <message>
        <source>%1 is a gated repository and this token has no access to it yet: accept the license on the model page (%2), then try again.</source>
        <translation>%1 是受限儲存庫，此權杖還沒有存取權限：請在模型頁面（%2）上接受授權條款，然後重試。</translation>
    </message>
    <message>
        <source>%1 is a gated repository: it needs an access token. Accept the license on the model page (%2) and add a token under Access token.</source>
        <translation>%1 是受限儲存庫：需要存取權杖。請在模型頁面（%2）上接受授權條款，並在「存取權杖」中加入權杖。</translation>
    </message>
    <message>
        <source>The hub refused access to %1 with this token (%2). Check that the token may read it.</source>
        <translation>Hub 拒絕此權杖存取 %1（%2）。請檢查該權杖是否有讀取權限。</translation>
    </message>
    <message>
        <source>%1 was not found, or it is private or gated and needs an access token: accept the license on the model page (%2) and add a token under Access token.</source>
        <translation>找不到 %1，或者它是私人或受限儲存庫，需要存取權杖：請在模型頁面（%2）上接受授權條款，並在「存取權杖」中加入權杖。</translation>
    </message>
    <message>
        <source>Not found: %1 has no revision %2.</source>
        <translation>找不到：%1 沒有版本 %2。</translation>
    </message>
    <message>
        <source>Not found: %1 has no file %2 (at %3).</source>
        <translation>找不到：%1 中沒有檔案 %2（版本 %3）。</translation>
    </message>
    <message>
        <source>Not found: there is no repository %1 on the hub.</source>
        <translation>找不到：Hub 上沒有儲存庫 %1。</translation>
    </message>
    <message>
        <source>The server could not continue the download where it stopped (416: range not satisfiable).</source>
        <translation>伺服器無法從中斷處繼續下載（416：要求的範圍無法滿足）。</translation>
    </message>
    <message>
        <source>The hub is busy (too many requests). Try again in a few minutes.</source>
        <translation>Hub 忙碌中（要求過多）。請幾分鐘後重試。</translation>
    </message>
    <message>
        <source>The hub had a server error (%1). Try again later.</source>
        <translation>Hub 發生伺服器錯誤（%1）。請稍後重試。</translation>
    </message>
    <message>
        <source>The hub answered %1: %2</source>
        <translation>Hub 傳回了 %1：%2</translation>
    </message>
    <message>
        <source>The hub answered with the unexpected status %1.</source>
        <translation>Hub 傳回了意外的狀態 %1。</translation>
    </message>
    <message>
        <source>Could not find %1. Is this computer online?</source>
        <translation>找不到 %1。這台電腦有連上網路嗎？</translation>
    </message>
    <message>
        <source>%1 refused the connection. Is this computer online?</source>
        <translation>%1 拒絕了連線。這台電腦有連上網路嗎？</translation>
    </message>
    <message>
        <source>%1 did not answer in time.</source>
        <translation>%1 沒有及時回應。</translation>
    </message>
    <message>
        <source>The connection to %1 was cut.</source>
        <translation>與 %1 的連線已中斷。</translation>
    </message>
    <message>
        <source>A secure connection to %1 could not be made: %2</source>
        <translation>無法與 %1 建立安全連線：%2</translation>
    </message>
    <message>
        <source>The network is not available (%1).</source>
        <translation>網路無法使用（%1）。</translation>
    </message>
    <message>
        <source>The proxy did not let the connection to %1 through: %2</source>
        <translation>代理伺服器沒有放行到 %1 的連線：%2</translation>
    </message>
    <message>
        <source>Could not reach %1: %2</source>
        <translation>無法連線到 %1：%2</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>System language</source>
        <translation>跟隨系統</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>語言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟隨系統</translation>
    </message>
</context>
<context>
    <name>LibraryModel</name>
    <message>
        <source>Burrow</source>
        <translation>Burrow</translation>
    </message>
    <message>
        <source>Burrow can&apos;t run the %1 architecture yet.</source>
        <translation>Burrow 暫時還不能執行 %1 架構。</translation>
    </message>
    <message numerus="yes">
        <source>Split into %n files; Burrow opens single-file models only.</source>
        <translation>
            <numerusform>分成了 %n 個檔案；Burrow 只能開啟單一檔案的模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>A part of this split model is missing: %1</source>
        <translation>這個分割模型缺少一部分：%1</translation>
    </message>
    <message>
        <source>Its settings are not supported: %1</source>
        <translation>不支援它的設定：%1</translation>
    </message>
    <message>
        <source>Its weights can&apos;t be used: %1</source>
        <translation>無法使用它的權重：%1</translation>
    </message>
    <message>
        <source>Its tokenizer is not supported: %1</source>
        <translation>不支援它的分詞器：%1</translation>
    </message>
    <message>
        <source>%1 (remote)</source>
        <translation>%1（遠端）</translation>
    </message>
</context>
<context>
    <name>LibraryPlace</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>absent</source>
        <translation>不存在</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Stop looking in %1</source>
        <translation>不再在 %1 中尋找</translation>
    </message>
</context>
<context>
    <name>LibraryRow</name>
    <message>
        <source>%L1 tokens</source>
        <translation>%L1 個詞元</translation>
    </message>
    <message>
        <source>%1, from %2</source>
        <translation>%1，來自 %2</translation>
    </message>
    <message>
        <source>%1, from %2: %3</source>
        <translation>%1，來自 %2：%3</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最近使用</translation>
    </message>
    <message>
        <source>Needs %1; fits in the memory free now</source>
        <translation>需要 %1；目前可用記憶體足夠</translation>
    </message>
    <message>
        <source>Needs %1, more than the memory free now</source>
        <translation>需要 %1，超過目前可用記憶體</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>開啟</translation>
    </message>
    <message>
        <source>Open %1</source>
        <translation>開啟 %1</translation>
    </message>
    <message>
        <source>Remote: runs on the server, not on this computer</source>
        <translation>遠端：在伺服器上執行，而不是在這台電腦上</translation>
    </message>
</context>
<context>
    <name>LoadingBar</name>
    <message>
        <source>Loading %1…</source>
        <translation>正在載入 %1…</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>載入進度</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
</context>
<context>
    <name>LocalServer</name>
    <message numerus="yes">
        <source>Server: %1 · %n client(s)</source>
        <translation>
            <numerusform>伺服器：%1 · %n 個用戶端</numerusform>
        </translation>
    </message>
    <message>
        <source>Server: %1</source>
        <translation>伺服器：%1</translation>
    </message>
    <message>
        <source>Server: starting…</source>
        <translation>伺服器：正在啟動…</translation>
    </message>
</context>
<context>
    <name>LocalServerDialog</name>
    <message>
        <source>Local server</source>
        <translation>本機伺服器</translation>
    </message>
    <message>
        <source>Serves the loaded model over an OpenAI-compatible API (/v1/chat/completions, /v1/completions, /v1/models), for programs such as editor plug-ins or SDKs. Your own chats run first.</source>
        <translation>透過相容 OpenAI 的 API（/v1/chat/completions、/v1/completions、/v1/models）提供已載入的模型，供編輯器外掛或 SDK 等程式使用。你自己的對話優先執行。</translation>
    </message>
    <message>
        <source>Run the local server</source>
        <translation>執行本機伺服器</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>連接埠</translation>
    </message>
    <message>
        <source>Allow other devices on the network</source>
        <translation>允許網路上的其他裝置</translation>
    </message>
    <message>
        <source>Anyone who can reach this computer can use the model. Set an API key.</source>
        <translation>任何能連到這台電腦的人都可以使用該模型。請設定 API 金鑰。</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 金鑰</translation>
    </message>
    <message>
        <source>none (optional)</source>
        <translation>無（選用）</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>Burrow exports (*.zip)</source>
        <translation>Burrow 匯出檔案 (*.zip)</translation>
    </message>
    <message>
        <source>Zip archives (*.zip)</source>
        <translation>Zip 壓縮檔 (*.zip)</translation>
    </message>
    <message>
        <source>Compressed models (*.zip *.tar.gz *.tgz *.tar.xz *.tar.zst *.gguf.gz *.gguf.xz *.gguf.zst)</source>
        <translation>壓縮的模型 (*.zip *.tar.gz *.tgz *.tar.xz *.tar.zst *.gguf.gz *.gguf.xz *.gguf.zst)</translation>
    </message>
    <message>
        <source>Settings for new chats</source>
        <translation>新對話的設定</translation>
    </message>
    <message>
        <source>%1 — Burrow</source>
        <translation>%1 — Burrow</translation>
    </message>
    <message>
        <source>Burrow</source>
        <translation>Burrow</translation>
    </message>
    <message>
        <source>Reading the model file</source>
        <translation>正在讀取模型檔案</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有檔案 (*)</translation>
    </message>
    <message>
        <source>Replace the replies?</source>
        <translation>取代後面的回覆？</translation>
    </message>
    <message>
        <source>Sending the edited message replaces the messages after it.</source>
        <translation>傳送編輯後的訊息會取代它之後的所有訊息。</translation>
    </message>
    <message>
        <source>Open a model (Ctrl+L: type a path)</source>
        <translation>開啟模型（Ctrl+L：輸入路徑）</translation>
    </message>
    <message>
        <source>Export conversations (Ctrl+L: type a path)</source>
        <translation>匯出對話（Ctrl+L：輸入路徑）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>儲存</translation>
    </message>
    <message>
        <source>Import conversations (Ctrl+L: type a path)</source>
        <translation>匯入對話（Ctrl+L：輸入路徑）</translation>
    </message>
</context>
<context>
    <name>McpClient</name>
    <message>
        <source>the tool server was started again</source>
        <translation>工具伺服器已重新啟動</translation>
    </message>
    <message>
        <source>the tool server was stopped</source>
        <translation>工具伺服器已停止</translation>
    </message>
    <message>
        <source>[%1 content, not shown]</source>
        <translation>[%1 內容，未顯示]</translation>
    </message>
    <message numerus="yes">
        <source>[the result was cut here: it had %n characters]</source>
        <translation>
            <numerusform>[結果在此截斷：原有 %n 個字元]</numerusform>
        </translation>
    </message>
    <message>
        <source>the tool server did not answer %1 within %2 s</source>
        <translation>工具伺服器在 %2 秒內沒有回答 %1</translation>
    </message>
    <message>
        <source>(it wrote text that is not a JSON-RPC message: %1)</source>
        <translation>（它輸出了不是 JSON-RPC 訊息的文字：%1）</translation>
    </message>
    <message>
        <source>the tool server refused: %1</source>
        <translation>工具伺服器拒絕了：%1</translation>
    </message>
    <message>
        <source>the tool server sent a message over %1 MiB; it was stopped</source>
        <translation>工具伺服器傳送了超過 %1 MiB 的訊息，已將其停止</translation>
    </message>
    <message>
        <source>the tool server &quot;%1&quot; could not be started: %2</source>
        <translation>無法啟動工具伺服器「%1」：%2</translation>
    </message>
    <message>
        <source>the tool server ended (exit status %1)</source>
        <translation>工具伺服器已結束（結束狀態 %1）</translation>
    </message>
    <message>
        <source>the tool server sent a message over %1 MiB</source>
        <translation>工具伺服器傳送了超過 %1 MiB 的訊息</translation>
    </message>
    <message>
        <source>the tool server cannot be reached: %1</source>
        <translation>無法連線到工具伺服器：%1</translation>
    </message>
    <message>
        <source>the tool server answered HTTP %1</source>
        <translation>工具伺服器回應了 HTTP %1</translation>
    </message>
    <message>
        <source>the tool server&apos;s answer is not a JSON-RPC message</source>
        <translation>工具伺服器的回答不是 JSON-RPC 訊息</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>Details</source>
        <translation>詳細資料</translation>
    </message>
    <message>
        <source>The model remembers from here; older messages no longer fit its context</source>
        <translation>模型從這裡開始記得；更早的訊息已超出其上下文</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中斷</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>writing…</source>
        <translation>產生中…</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>複製</translation>
    </message>
    <message>
        <source>Copy this message</source>
        <translation>複製這則訊息</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>編輯</translation>
    </message>
    <message>
        <source>Edit and resend this message</source>
        <translation>編輯並重新傳送這則訊息</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新產生</translation>
    </message>
    <message>
        <source>Write this reply again</source>
        <translation>重新產生這則回覆</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Edited message</source>
        <translation>編輯後的訊息</translation>
    </message>
    <message>
        <source>Send again</source>
        <translation>重新傳送</translation>
    </message>
    <message>
        <source>Send the edited message</source>
        <translation>傳送編輯後的訊息</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel editing</source>
        <translation>取消編輯</translation>
    </message>
    <message>
        <source>The context is full: the reply ends here. A larger context, or &quot;Shift&quot; in this chat&apos;s settings, lets the next reply go on.</source>
        <translation>上下文已滿：回覆到此結束。更大的上下文，或在這個對話的設定中選擇「平移」，可以讓下一則回覆繼續。</translation>
    </message>
    <message>
        <source>The context is full: the reply ends here. This model cannot shift its context; a larger context or a new chat gives the next reply room.</source>
        <translation>上下文已滿：回覆到此結束。這個模型不能平移上下文；更大的上下文或新對話能給下一則回覆留出空間。</translation>
    </message>
</context>
<context>
    <name>MessageModel</name>
    <message numerus="yes">
        <source>%n tokens · %1 tokens/s</source>
        <translation>
            <numerusform>%n 個詞元 · %1 詞元/秒</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelCard</name>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 experts, %2 active</source>
        <translation>%1 個專家，%2 個啟用</translation>
    </message>
    <message>
        <source>%1 of %2 active per token</source>
        <translation>每個詞元啟用 %1（共 %2）</translation>
    </message>
    <message>
        <source>%1 positions on %2 of %3 layers</source>
        <translation>%1 個位置，用於 %3 層中的 %2 層</translation>
    </message>
    <message>
        <source>the last %1 of %2 layers reuse earlier layers&apos; keys and values</source>
        <translation>最後 %1 層（共 %2 層）重複使用前面層的鍵和值</translation>
    </message>
    <message>
        <source>%1 per layer, %2, read from the file one row per token</source>
        <translation>每層 %1 個，%2，每個詞元從檔案讀取一列</translation>
    </message>
    <message>
        <source>its own chat template</source>
        <translation>它內建的對話範本</translation>
    </message>
    <message>
        <source>chosen when it loads: the chat format its vocabulary shows, or plain text</source>
        <translation>載入時決定：其詞彙表顯示的對話格式，或純文字</translation>
    </message>
    <message>
        <source>none: the model continues your text (it has no chat template and no chat tokens)</source>
        <translation>無：模型接著寫你的文字（它沒有對話範本，也沒有對話標記）</translation>
    </message>
    <message>
        <source>%1, from the chat tokens in its vocabulary (it has no chat template)</source>
        <translation>%1，來自其詞彙表中的對話標記（它沒有對話範本）</translation>
    </message>
    <message>
        <source>%1 (its own chat template cannot be used)</source>
        <translation>%1（無法使用它內建的對話範本）</translation>
    </message>
    <message>
        <source>%1, chosen from its architecture (it has no chat template)</source>
        <translation>%1，依其架構選擇（它沒有對話範本）</translation>
    </message>
    <message>
        <source>prompt lookup (n-gram)</source>
        <translation>提示查找（n-gram）</translation>
    </message>
    <message>
        <source>its MTP layers</source>
        <translation>其 MTP 層</translation>
    </message>
    <message>
        <source>a draft model with the same vocabulary</source>
        <translation>詞表相同的草稿模型</translation>
    </message>
    <message>
        <source>none: this file is a drafter for Gemma 4 models (choose it as a chat&apos;s draft model)</source>
        <translation>無：此檔案是 Gemma 4 模型的草稿器（請將其選為聊天的草稿模型）</translation>
    </message>
    <message>
        <source>its assistant file (as the draft model)</source>
        <translation>其助理檔案（作為草稿模型）</translation>
    </message>
</context>
<context>
    <name>ModelCardDialog</name>
    <message>
        <source>Open %1</source>
        <translation>開啟 %1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名稱</translation>
    </message>
    <message>
        <source>File</source>
        <translation>檔案</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架構</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>參數量</translation>
    </message>
    <message>
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <source>Trained context</source>
        <translation>訓練上下文</translation>
    </message>
    <message>
        <source>%L1 tokens</source>
        <translation>%L1 個詞元</translation>
    </message>
    <message>
        <source>File size</source>
        <translation>檔案大小</translation>
    </message>
    <message>
        <source>Chat format</source>
        <translation>對話格式</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Context size in tokens</source>
        <translation>上下文大小（詞元數）</translation>
    </message>
    <message>
        <source>Memory needed</source>
        <translation>所需記憶體</translation>
    </message>
    <message>
        <source>This needs more memory than is free now. Loading may fail or make the computer slow; a smaller context or a smaller quantization needs less.</source>
        <translation>所需記憶體超過目前可用的記憶體。載入可能失敗或讓電腦變慢；較小的上下文或較小的量化版本所需記憶體較少。</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>載入</translation>
    </message>
    <message>
        <source>Load anyway</source>
        <translation>仍要載入</translation>
    </message>
    <message>
        <source>Load this model</source>
        <translation>載入此模型</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Don&apos;t load this model</source>
        <translation>不載入此模型</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>專家</translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation>滑動視窗</translation>
    </message>
    <message>
        <source>Shared KV layers</source>
        <translation>共用 KV 的層</translation>
    </message>
    <message>
        <source>Per-layer embeddings</source>
        <translation>逐層嵌入</translation>
    </message>
    <message>
        <source>%1 (weights and KV cache), %2 free</source>
        <translation>%1（權重與 KV 快取），可用 %2</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>推測解碼</translation>
    </message>
</context>
<context>
    <name>ModelLibraryView</name>
    <message>
        <source>Model library</source>
        <translation>模型庫</translation>
    </message>
    <message>
        <source>Looking for models</source>
        <translation>正在尋找模型</translation>
    </message>
    <message>
        <source>Download a model…</source>
        <translation>下載模型…</translation>
    </message>
    <message>
        <source>Download a model from Hugging Face</source>
        <translation>從 Hugging Face 下載模型</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>新增資料夾…</translation>
    </message>
    <message>
        <source>Add a folder to look for models in</source>
        <translation>新增一個用來尋找模型的資料夾</translation>
    </message>
    <message>
        <source>Back to the chat</source>
        <translation>返回對話</translation>
    </message>
    <message>
        <source>Close the model library</source>
        <translation>關閉模型庫</translation>
    </message>
    <message>
        <source>Search by name, family, quantization or source</source>
        <translation>依名稱、系列、量化或來源搜尋</translation>
    </message>
    <message>
        <source>Search the models</source>
        <translation>搜尋模型</translation>
    </message>
    <message>
        <source>Sort</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>Recently used first</source>
        <translation>最近使用的在前</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名稱</translation>
    </message>
    <message>
        <source>Size, smallest first</source>
        <translation>大小，由小到大</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>來源</translation>
    </message>
    <message>
        <source>Sort the models</source>
        <translation>排序模型</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>這台電腦上的模型</translation>
    </message>
    <message>
        <source>Scroll the models</source>
        <translation>捲動模型清單</translation>
    </message>
    <message>
        <source>No model matches “%1”.</source>
        <translation>沒有符合「%1」的模型。</translation>
    </message>
    <message>
        <source>Looking for models on this computer…</source>
        <translation>正在這台電腦上尋找模型…</translation>
    </message>
    <message>
        <source>No models found. Burrow looks in the folders of LM Studio, Ollama, GPT4All, Jan and the Hugging Face cache, and in its own models folder. Add a folder, or drop a .gguf file on the window.</source>
        <translation>沒有找到模型。Burrow 會在 LM Studio、Ollama、GPT4All、Jan 和 Hugging Face 快取的資料夾以及它自己的模型資料夾中尋找。可以新增一個資料夾，或把 .gguf 檔案拖放到視窗上。</translation>
    </message>
    <message>
        <source>Looked in:</source>
        <translation>尋找位置：</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) passed over (not GGUF models, or unreadable)</source>
        <translation>
            <numerusform>略過了 %n 個檔案（不是 GGUF 模型，或無法讀取）</numerusform>
        </translation>
    </message>
    <message>
        <source>Add a folder with models</source>
        <translation>新增包含模型的資料夾</translation>
    </message>
</context>
<context>
    <name>ModelLoader</name>
    <message>
        <source>Only model files can be dropped here.</source>
        <translation>只能將模型檔案拖放到這裡。</translation>
    </message>
    <message>
        <source>Drop one model file at a time.</source>
        <translation>一次只能拖放一個模型檔案。</translation>
    </message>
    <message>
        <source>Only files on this computer can be opened.</source>
        <translation>只能開啟這台電腦上的檔案。</translation>
    </message>
    <message>
        <source>%1 is a folder; drop a .gguf model file.</source>
        <translation>%1 是資料夾，請拖放 .gguf 模型檔案。</translation>
    </message>
    <message>
        <source>%1 is not a .gguf model file.</source>
        <translation>%1 不是 .gguf 模型檔案。</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>the file could not be read</source>
        <translation>無法讀取該檔案</translation>
    </message>
    <message>
        <source>Burrow can&apos;t use %1: %2</source>
        <translation>Burrow 無法使用 %1：%2</translation>
    </message>
    <message>
        <source>Burrow can&apos;t use %1: %2 %3 stays loaded.</source>
        <translation>Burrow 無法使用 %1：%2 仍保留已載入的 %3。</translation>
    </message>
    <message>
        <source>this build cannot reach servers</source>
        <translation>此版本無法連線到伺服器</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>the server &quot;%1&quot; has an empty command</source>
        <translation>伺服器「%1」的命令是空的</translation>
    </message>
    <message>
        <source>the server &quot;%1&quot; names neither a command nor an http(s) URL</source>
        <translation>伺服器「%1」既沒有命令也沒有 http(s) 位址</translation>
    </message>
</context>
<context>
    <name>ReasoningBlock</name>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Thought</source>
        <translation>已思考</translation>
    </message>
    <message>
        <source>Thought for %L1 s</source>
        <translation>思考了 %L1 秒</translation>
    </message>
    <message>
        <source>Hide the reasoning</source>
        <translation>隱藏推理過程</translation>
    </message>
    <message>
        <source>Show the reasoning</source>
        <translation>顯示推理過程</translation>
    </message>
</context>
<context>
    <name>RecentModelItem</name>
    <message>
        <source>Open recent model %1</source>
        <translation>開啟最近使用的模型 %1</translation>
    </message>
</context>
<context>
    <name>RemoteBackend</name>
    <message>
        <source>this is not a remote model&apos;s address</source>
        <translation>這不是遠端模型的位址</translation>
    </message>
    <message>
        <source>the server %1 is not among your servers (Settings → Servers); Burrow sends nothing to it</source>
        <translation>伺服器 %1 不在你的伺服器清單中（設定 → 伺服器）；Burrow 不會傳送任何內容給它</translation>
    </message>
    <message>
        <source>remote</source>
        <translation>遠端</translation>
    </message>
    <message>
        <source>Loading was cancelled.</source>
        <translation>已取消載入。</translation>
    </message>
    <message>
        <source>The server %1 was removed from Settings → Servers; nothing was sent.</source>
        <translation>伺服器 %1 已從「設定 → 伺服器」中移除；未傳送任何內容。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>沒有載入模型。</translation>
    </message>
</context>
<context>
    <name>RemoteChat</name>
    <message>
        <source>%1 sent a line of more than %2 MiB; the reply was given up, what arrived is kept.</source>
        <translation>%1 傳送了超過 %2 MiB 的一行；已放棄這則回覆，已收到的內容會保留。</translation>
    </message>
    <message>
        <source>%1 reported an error in the middle of the reply: %2</source>
        <translation>%1 在回覆途中回報了錯誤：%2</translation>
    </message>
    <message>
        <source>%1 sent nothing for %2 s in the middle of the reply; it was given up, what arrived is kept.</source>
        <translation>%1 在回覆途中 %2 秒沒有傳送任何內容；已放棄，已收到的內容會保留。</translation>
    </message>
    <message>
        <source>%1 did not answer within %2 s; the request was given up.</source>
        <translation>%1 在 %2 秒內沒有回應；已放棄該請求。</translation>
    </message>
    <message>
        <source>none received</source>
        <translation>未收到</translation>
    </message>
    <message>
        <source>issued to “%1” by “%2”, valid %3 to %4, SHA-256 fingerprint %5</source>
        <translation>簽發給「%1」，簽發者「%2」，有效期 %3 至 %4，SHA-256 指紋 %5</translation>
    </message>
    <message>
        <source>%1 refused the API key (HTTP %2)%3. Check the key in Settings → Servers.</source>
        <translation>%1 拒絕了 API 金鑰（HTTP %2）%3。請在「設定 → 伺服器」中檢查金鑰。</translation>
    </message>
    <message>
        <source>%1 has no model “%2” (HTTP 404)%3. It may have been removed, or the address does not end in the server&apos;s /v1; choose another model in the library.</source>
        <translation>%1 沒有模型「%2」（HTTP 404）%3。它可能已被移除，或者位址沒有以伺服器的 /v1 結尾；請在模型庫中選擇其他模型。</translation>
    </message>
    <message>
        <source>%1 refused the chat settings %2 (HTTP %3)%4. Set them back to their defaults in this chat&apos;s settings to use this server.</source>
        <translation>%1 拒絕了對話設定 %2（HTTP %3）%4。要使用此伺服器，請在本對話的設定中將它們恢復為預設值。</translation>
    </message>
    <message>
        <source>%1 answered HTTP %2%3.</source>
        <translation>%1 回應了 HTTP %2%3。</translation>
    </message>
    <message>
        <source>The connection to %1 was refused: its certificate could not be checked (%2). The certificate: %3. Burrow does not accept a certificate it cannot check; give the server one from an authority this computer trusts, or add its authority to the system&apos;s certificates.</source>
        <translation>與 %1 的連線被拒絕：無法驗證它的憑證（%2）。憑證：%3。Burrow 不接受無法驗證的憑證；請為伺服器設定由這台電腦信任的機構簽發的憑證，或將其簽發機構加入系統憑證。</translation>
    </message>
    <message>
        <source>%1 is busy (HTTP %2) and asked to wait %3 s; try again later.</source>
        <translation>%1 忙碌中（HTTP %2），要求等待 %3 秒；請稍後再試。</translation>
    </message>
    <message>
        <source>%1 is busy (HTTP %2); it was asked %3 times. Try again later.</source>
        <translation>%1 忙碌中（HTTP %2）；已請求 %3 次。請稍後再試。</translation>
    </message>
    <message>
        <source>Could not reach %1 at %2 (%3). Is the server running, and is the address right?</source>
        <translation>無法連線到 %1（%2）：%3。伺服器是否在執行，位址是否正確？</translation>
    </message>
    <message>
        <source>The connection to %1 ended in the middle of the reply; the text that arrived is kept.</source>
        <translation>與 %1 的連線在回覆途中中斷；已收到的文字會保留。</translation>
    </message>
    <message>
        <source>The connection to %1 ended before the reply began (%2).</source>
        <translation>與 %1 的連線在回覆開始前中斷（%2）。</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>沒有回應</translation>
    </message>
    <message>
        <source>%1 sent an answer of more than %2 MiB; it was given up.</source>
        <translation>%1 傳送的回應超過 %2 MiB；已放棄。</translation>
    </message>
</context>
<context>
    <name>RemoteServers</name>
    <message>
        <source>No API key.</source>
        <translation>沒有 API 金鑰。</translation>
    </message>
    <message>
        <source>The API key is kept in %1, which only you can read.</source>
        <translation>API 金鑰保存在 %1 中，只有你可以讀取。</translation>
    </message>
    <message>
        <source>The API key is kept in the system keychain.</source>
        <translation>API 金鑰保存在系統鑰匙圈中。</translation>
    </message>
    <message>
        <source>Type the server&apos;s address with http:// or https://, e.g. http://192.168.1.20:8000/v1.</source>
        <translation>請輸入以 http:// 或 https:// 開頭的伺服器位址，例如 http://192.168.1.20:8000/v1。</translation>
    </message>
    <message>
        <source>“%1” is not a server address.</source>
        <translation>「%1」不是伺服器位址。</translation>
    </message>
    <message>
        <source>%1 is in the list already.</source>
        <translation>%1 已在清單中。</translation>
    </message>
    <message>
        <source>Burrow keeps at most %1 servers; remove one first.</source>
        <translation>Burrow 最多保存 %1 個伺服器；請先移除一個。</translation>
    </message>
    <message>
        <source>Listing models…</source>
        <translation>正在列出模型…</translation>
    </message>
    <message>
        <source>The server refused the API key (HTTP %1).</source>
        <translation>伺服器拒絕了 API 金鑰（HTTP %1）。</translation>
    </message>
    <message>
        <source>No answer within %1 s, or a list over 4 MiB.</source>
        <translation>%1 秒內沒有回應，或清單超過 4 MiB。</translation>
    </message>
    <message>
        <source>Could not reach the server: %1</source>
        <translation>無法連線到伺服器：%1</translation>
    </message>
    <message>
        <source>The server answered HTTP %1 to GET /models; is the address its /v1?</source>
        <translation>伺服器對 GET /models 回應了 HTTP %1；位址是否指向它的 /v1？</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) (listed before)</source>
        <translation>
            <numerusform>%n 個模型（上次列出）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is another computer reached by plain http: your chats would cross the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.</source>
        <translation>%1 是透過明文 http 存取的另一台電腦：你的對話會未加密地經過網路。如果伺服器支援，請使用 https://，或再按一次「新增」仍然新增它。</translation>
    </message>
    <message>
        <source>%1 is another computer reached by plain http: your chats and the API key would cross the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.</source>
        <translation>%1 是透過明文 http 存取的另一台電腦：你的對話和 API 金鑰會未加密地經過網路。如果伺服器支援，請使用 https://，或再按一次「新增」仍然新增它。</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s)</source>
        <translation>
            <numerusform>%n 個模型</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ReplyDetails</name>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>prompt: %1 tokens</source>
        <translation>提示詞：%1 個詞元</translation>
    </message>
    <message>
        <source>reply: %1 tokens</source>
        <translation>回覆：%1 個詞元</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 詞元/秒</translation>
    </message>
    <message>
        <source>Interrupted: Burrow stopped while this reply was being written.</source>
        <translation>已中斷：產生此回覆時 Burrow 停止執行了。</translation>
    </message>
    <message>
        <source>Stopped before the end.</source>
        <translation>在結束前被停止。</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失敗：%1</translation>
    </message>
    <message>
        <source>Being written…</source>
        <translation>正在產生…</translation>
    </message>
    <message>
        <source>random seed</source>
        <translation>隨機種子</translation>
    </message>
    <message>
        <source>seed %1</source>
        <translation>種子 %1</translation>
    </message>
    <message>
        <source>on</source>
        <translation>開</translation>
    </message>
    <message>
        <source>off</source>
        <translation>關</translation>
    </message>
    <message>
        <source>Settings: %1</source>
        <translation>設定：%1</translation>
    </message>
    <message>
        <source>Written %1</source>
        <translation>寫於 %1</translation>
    </message>
    <message>
        <source>Drafted: %1 tokens, %2 accepted (%3 %)</source>
        <translation>草稿：%1 個詞元，接受 %2 個（%3 %）</translation>
    </message>
    <message>
        <source>Drafted: none</source>
        <translation>草稿：無</translation>
    </message>
    <message>
        <source> · %1 tokens per pass of the model (1 without drafts)</source>
        <translation> · 模型每次計算寫出 %1 個詞元（不用草稿時為 1）</translation>
    </message>
</context>
<context>
    <name>ReplyStream</name>
    <message numerus="yes">
        <source>%n tokens at %1 tokens/s</source>
        <translation>
            <numerusform>%n 個詞元，%1 詞元/秒</numerusform>
        </translation>
    </message>
    <message>
        <source>prompt: %1 new, %2 reused</source>
        <translation>提示詞：新增 %1，沿用 %2</translation>
    </message>
    <message>
        <source>Stopped: this reply could not be saved (%1), so it would be gone after a restart.</source>
        <translation>已停止：無法儲存此回覆（%1），重新啟動後它就會消失。</translation>
    </message>
</context>
<context>
    <name>ServerRow</name>
    <message>
        <source>%1 at %2: %3</source>
        <translation>%1，位於 %2：%3</translation>
    </message>
    <message>
        <source>(not encrypted)</source>
        <translation>（未加密）</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>重新整理</translation>
    </message>
    <message>
        <source>List the models of %1 again</source>
        <translation>重新列出 %1 的模型</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
</context>
<context>
    <name>ServersDialog</name>
    <message>
        <source>Servers</source>
        <translation>伺服器</translation>
    </message>
    <message>
        <source>Chat with models that run on another computer, served over an OpenAI-compatible API (vLLM, llama-server, Ollama, LM Studio, another Burrow). Their models appear in the model library, marked remote.</source>
        <translation>與在另一台電腦上執行、透過相容 OpenAI 的 API 提供的模型對話（vLLM、llama-server、Ollama、LM Studio、另一個 Burrow）。它們的模型會出現在模型庫中，標示為遠端。</translation>
    </message>
    <message>
        <source>No servers yet.</source>
        <translation>還沒有伺服器。</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>位址</translation>
    </message>
    <message>
        <source>Server address</source>
        <translation>伺服器位址</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名稱</translation>
    </message>
    <message>
        <source>optional, e.g. GPU box</source>
        <translation>選填，例如 GPU 主機</translation>
    </message>
    <message>
        <source>Server name</source>
        <translation>伺服器名稱</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 金鑰</translation>
    </message>
    <message>
        <source>none (optional)</source>
        <translation>無（選填）</translation>
    </message>
    <message>
        <source>Add anyway</source>
        <translation>仍然新增</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>新增</translation>
    </message>
</context>
<context>
    <name>SettingRow</name>
    <message>
        <source>Differs from the default</source>
        <translation>與預設值不同</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重設</translation>
    </message>
    <message>
        <source>Reset %1 to the default</source>
        <translation>將「%1」重設為預設值</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>預設：%1</translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <source>No model loaded</source>
        <translation>尚未載入模型</translation>
    </message>
    <message>
        <source>Reading the prompt</source>
        <translation>正在讀取提示詞</translation>
    </message>
    <message>
        <source>Reading the prompt… %1%</source>
        <translation>正在讀取提示詞… %1%</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 詞元/秒</translation>
    </message>
    <message>
        <source>Context %L1 / %L2</source>
        <translation>上下文 %L1 / %L2</translation>
    </message>
    <message>
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <source>%1 of %2 tokens</source>
        <translation>%1 / %2 個詞元</translation>
    </message>
    <message>
        <source>this chat asks for %L1: the next reply makes the context again</source>
        <translation>此對話需要 %L1：下一次回覆會重新建立上下文</translation>
    </message>
    <message>
        <source>%1 on %2 (remote)</source>
        <translation>%1（位於 %2，遠端）</translation>
    </message>
</context>
<context>
    <name>ToolCard</name>
    <message>
        <source>Tool call %1</source>
        <translation>工具呼叫 %1</translation>
    </message>
    <message>
        <source>Tool: %1</source>
        <translation>工具：%1</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允許一次</translation>
    </message>
    <message>
        <source>Run %1 this time</source>
        <translation>這次執行 %1</translation>
    </message>
    <message>
        <source>Always for this chat</source>
        <translation>在此對話中一律允許</translation>
    </message>
    <message>
        <source>Run %1 without asking in this chat</source>
        <translation>在此對話中執行 %1 時不再詢問</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒絕</translation>
    </message>
    <message>
        <source>Do not run %1</source>
        <translation>不執行 %1</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>正在執行…</translation>
    </message>
    <message>
        <source>The call failed:</source>
        <translation>呼叫失敗：</translation>
    </message>
    <message>
        <source>Denied.</source>
        <translation>已拒絕。</translation>
    </message>
    <message>
        <source>Result (allowed for this chat):</source>
        <translation>結果（此對話中一律允許）：</translation>
    </message>
    <message>
        <source>Result:</source>
        <translation>結果：</translation>
    </message>
    <message>
        <source>The model wants to call this tool.</source>
        <translation>模型想要呼叫這個工具。</translation>
    </message>
</context>
<context>
    <name>ToolRunner</name>
    <message>
        <source>The user did not allow this call.</source>
        <translation>使用者沒有允許這次呼叫。</translation>
    </message>
    <message>
        <source>There are no tool servers.</source>
        <translation>沒有工具伺服器。</translation>
    </message>
    <message>
        <source>The model&apos;s arguments are not a JSON object.</source>
        <translation>模型給出的參數不是 JSON 物件。</translation>
    </message>
</context>
<context>
    <name>ToolServerRow</name>
    <message>
        <source>%1 (%2): %3</source>
        <translation>%1（%2）：%3</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重新啟動</translation>
    </message>
    <message>
        <source>Start %1 again and list its tools</source>
        <translation>重新啟動 %1 並列出其工具</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
</context>
<context>
    <name>ToolServers</name>
    <message>
        <source>Starting…</source>
        <translation>正在啟動…</translation>
    </message>
    <message numerus="yes">
        <source>%n tool(s)</source>
        <translation>
            <numerusform>%n 個工具</numerusform>
        </translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Type the command that starts the server, e.g. npx -y @modelcontextprotocol/server-everything.</source>
        <translation>請輸入啟動伺服器的命令，例如 npx -y @modelcontextprotocol/server-everything。</translation>
    </message>
    <message>
        <source>Each line of the environment is NAME=value; “%1” is not.</source>
        <translation>環境變數每行應為 NAME=value；「%1」不是。</translation>
    </message>
    <message>
        <source>Type the server&apos;s address with http:// or https://, e.g. http://127.0.0.1:3001/mcp.</source>
        <translation>請輸入以 http:// 或 https:// 開頭的伺服器位址，例如 http://127.0.0.1:3001/mcp。</translation>
    </message>
    <message>
        <source>%1 is another computer reached by plain http: the tools&apos; arguments and results would cross the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.</source>
        <translation>%1 是透過明文 http 連線的另一台電腦：工具的參數和結果將以未加密的形式經過網路。如果伺服器支援，請使用 https://，或再按一次「新增」仍然加入它。</translation>
    </message>
    <message>
        <source>Burrow keeps at most %1 tool servers; remove one first.</source>
        <translation>Burrow 最多保留 %1 個工具伺服器；請先移除一個。</translation>
    </message>
    <message>
        <source>There is a tool server called “%1” already.</source>
        <translation>已經有名為「%1」的工具伺服器。</translation>
    </message>
    <message>
        <source>No tool server offers a tool called “%1” now (Settings → Tools).</source>
        <translation>目前沒有工具伺服器提供名為「%1」的工具（設定 → 工具）。</translation>
    </message>
</context>
<context>
    <name>ToolsDialog</name>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Let the model use tools from MCP servers: a program Burrow starts (stdio), or a server at an address (streamable HTTP). You allow each call in the chat before it runs.</source>
        <translation>讓模型使用 MCP 伺服器提供的工具：由 Burrow 啟動的程式（stdio），或位於某個位址的伺服器（可串流 HTTP）。每次呼叫執行之前都由你在對話中允許。</translation>
    </message>
    <message>
        <source>No tool servers yet: the model is offered no tools.</source>
        <translation>還沒有工具伺服器：不會向模型提供任何工具。</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>位址</translation>
    </message>
    <message>
        <source>Server address</source>
        <translation>伺服器位址</translation>
    </message>
    <message>
        <source>Command and arguments</source>
        <translation>命令和參數</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名稱</translation>
    </message>
    <message>
        <source>optional, e.g. files</source>
        <translation>選填，例如 files</translation>
    </message>
    <message>
        <source>Tool server name</source>
        <translation>工具伺服器名稱</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>環境變數</translation>
    </message>
    <message>
        <source>NAME=value, one per line (optional)</source>
        <translation>NAME=value，每行一個（選填）</translation>
    </message>
    <message>
        <source>Environment variables</source>
        <translation>環境變數</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>新增</translation>
    </message>
</context>
</TS>
