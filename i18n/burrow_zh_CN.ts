<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About Burrow</source>
        <translation>关于 Burrow</translation>
    </message>
    <message>
        <source>the window, the controls and the conversation database (Qt Quick, Qt SQL)</source>
        <translation>窗口、控件和对话数据库（Qt Quick、Qt SQL）</translation>
    </message>
    <message>
        <source>stores your conversations, through Qt SQL</source>
        <translation>通过 Qt SQL 保存你的对话</translation>
    </message>
    <message>
        <source>reads and writes archives, in the burrow-archive helper</source>
        <translation>在 burrow-archive 辅助程序中读写归档文件</translation>
    </message>
    <message>
        <source>splits text into tokens by Unicode category</source>
        <translation>按 Unicode 字符类别将文本切分为词元</translation>
    </message>
    <message>
        <source>Burrow %1</source>
        <translation>Burrow %1</translation>
    </message>
    <message>
        <source>Chat with language models that run on your own computer. Nothing you write leaves it.</source>
        <translation>与在你自己电脑上运行的语言模型对话。你写下的任何内容都不会离开这台电脑。</translation>
    </message>
    <message>
        <source>Free software under the GNU General Public License, version 3 or any later version (%1). It comes with no warranty.</source>
        <translation>自由软件，依据 GNU 通用公共许可证第 3 版或（由你选择）任何更新版本（%1）授权。本软件不提供任何担保。</translation>
    </message>
    <message>
        <source>The inference engine is Burrow&apos;s own, written from scratch for this app.</source>
        <translation>推理引擎是 Burrow 自己的，专为本应用从零编写。</translation>
    </message>
    <message>
        <source>Built with</source>
        <translation>构建所用的库</translation>
    </message>
</context>
<context>
    <name>AccessToken</name>
    <message>
        <source>A token is saved in the system keychain.</source>
        <translation>已在系统密钥环中保存了一个令牌。</translation>
    </message>
    <message>
        <source>A token is saved in %1, which only you can read (no keychain service was available).</source>
        <translation>令牌已保存在 %1，只有你能读取（没有可用的密钥环服务）。</translation>
    </message>
    <message>
        <source>Paste a token first.</source>
        <translation>请先粘贴令牌。</translation>
    </message>
    <message>
        <source>This is too long for an access token.</source>
        <translation>这对访问令牌来说太长了。</translation>
    </message>
    <message>
        <source>An access token has no spaces or special characters; paste it again.</source>
        <translation>访问令牌不含空格或特殊字符，请重新粘贴。</translation>
    </message>
    <message>
        <source>cannot create the folder %1</source>
        <translation>无法创建文件夹 %1</translation>
    </message>
    <message>
        <source>The token could not be saved (%1); it is used until Burrow quits.</source>
        <translation>无法保存令牌（%1）；在 Burrow 退出前仍会使用它。</translation>
    </message>
    <message>
        <source>The saved access token could not be read; save it again.</source>
        <translation>无法读取已保存的访问令牌，请重新保存。</translation>
    </message>
    <message>
        <source>Could not read the access token from the system keychain: %1</source>
        <translation>无法从系统密钥环读取访问令牌：%1</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain, which this build of Burrow cannot read; save it again.</source>
        <translation>令牌保存在系统密钥环中，但此版本的 Burrow 无法读取，请重新保存。</translation>
    </message>
</context>
<context>
    <name>AccessTokenDialog</name>
    <message>
        <source>Hugging Face access token</source>
        <translation>Hugging Face 访问令牌</translation>
    </message>
    <message>
        <source>Gated and private repositories need an access token: create a read token in your Hugging Face account (Settings → Access Tokens) and accept the model&apos;s license on its page. Burrow sends the token to the hub only, never to the servers the downloads come from.</source>
        <translation>受限仓库和私有仓库需要访问令牌：在你的 Hugging Face 账户中创建一个只读令牌（Settings → Access Tokens），并在模型页面上接受其许可协议。Burrow 只把令牌发送给 Hub，绝不会发送给提供下载的服务器。</translation>
    </message>
    <message>
        <source>paste a new token to replace the saved one</source>
        <translation>粘贴新令牌以替换已保存的令牌</translation>
    </message>
    <message>
        <source>hf_…</source>
        <translation>hf_…</translation>
    </message>
    <message>
        <source>Access token</source>
        <translation>访问令牌</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save the access token</source>
        <translation>保存访问令牌</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>No token is saved.</source>
        <translation>尚未保存令牌。</translation>
    </message>
    <message>
        <source>Remove the saved token</source>
        <translation>删除已保存的令牌</translation>
    </message>
    <message>
        <source>Remove the saved access token</source>
        <translation>删除已保存的访问令牌</translation>
    </message>
</context>
<context>
    <name>AppActions</name>
    <message>
        <source>&amp;Open model…</source>
        <translation>打开模型(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新对话(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Find a chat</source>
        <translation>查找对话(&amp;F)</translation>
    </message>
    <message>
        <source>Chat s&amp;ettings…</source>
        <translation>对话设置(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Stop reply</source>
        <translation>停止回复(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Regenerate reply</source>
        <translation>重新生成回复(&amp;R)</translation>
    </message>
    <message>
        <source>C&amp;lear conversation</source>
        <translation>清空对话(&amp;L)</translation>
    </message>
    <message>
        <source>Settings for &amp;new chats…</source>
        <translation>新对话的设置(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;About Burrow</source>
        <translation>关于 Burrow(&amp;A)</translation>
    </message>
    <message>
        <source>Write a message</source>
        <translation>写消息</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Local &amp;server…</source>
        <translation>本地服务器(&amp;S)…</translation>
    </message>
    <message>
        <source>Model &amp;library…</source>
        <translation>模型库(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Download a model…</source>
        <translation>下载模型(&amp;D)…</translation>
    </message>
    <message>
        <source>Hugging Face &amp;access token…</source>
        <translation>Hugging Face 访问令牌(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Undo delete</source>
        <translation>撤销删除(&amp;U)</translation>
    </message>
    <message>
        <source>Ser&amp;vers…</source>
        <translation>服务器(&amp;V)…</translation>
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
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Recent models</source>
        <translation>最近使用的模型</translation>
    </message>
    <message>
        <source>E&amp;xport this conversation…</source>
        <translation>导出此对话(&amp;X)…</translation>
    </message>
    <message>
        <source>Export this conversation to a zip file</source>
        <translation>将此对话导出为 zip 文件</translation>
    </message>
    <message>
        <source>Export se&amp;lected conversations (%1)…</source>
        <translation>导出所选的 %1 个对话(&amp;L)…</translation>
    </message>
    <message>
        <source>Export the %1 selected conversations to a zip file</source>
        <translation>将所选的 %1 个对话导出为 zip 文件</translation>
    </message>
    <message>
        <source>&amp;Export all conversations…</source>
        <translation>导出所有对话(&amp;E)…</translation>
    </message>
    <message>
        <source>Export all conversations to a zip file</source>
        <translation>将所有对话导出为 zip 文件</translation>
    </message>
    <message>
        <source>&amp;Import conversations…</source>
        <translation>导入对话(&amp;I)…</translation>
    </message>
    <message>
        <source>Import conversations from a Burrow export</source>
        <translation>从 Burrow 导出文件导入对话</translation>
    </message>
    <message>
        <source>Quit Burrow</source>
        <translation>退出 Burrow</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>对话(&amp;C)</translation>
    </message>
    <message>
        <source>Start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <source>Settings of this chat</source>
        <translation>此对话的设置</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>Regenerate the last reply</source>
        <translation>重新生成最后一条回复</translation>
    </message>
    <message>
        <source>Clear the conversation</source>
        <translation>清空对话</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>Settings new chats start with</source>
        <translation>新对话开始时使用的设置</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>About Burrow</source>
        <translation>关于 Burrow</translation>
    </message>
    <message>
        <source>Local server settings</source>
        <translation>本地服务器设置</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>这台电脑上的模型</translation>
    </message>
    <message>
        <source>Download a model from the Hugging Face hub</source>
        <translation>从 Hugging Face Hub 下载模型</translation>
    </message>
    <message>
        <source>The Hugging Face access token for downloads</source>
        <translation>用于下载的 Hugging Face 访问令牌</translation>
    </message>
    <message>
        <source>Bring back the chat just deleted</source>
        <translation>恢复刚删除的对话</translation>
    </message>
    <message>
        <source>Servers whose models you can chat with</source>
        <translation>可以与其模型对话的服务器</translation>
    </message>
    <message>
        <source>Tool servers the model may call</source>
        <translation>模型可以调用的工具服务器</translation>
    </message>
</context>
<context>
    <name>ArchiveBar</name>
    <message>
        <source>Dismiss the archive message</source>
        <translation>关闭归档消息</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Cancel the archive job</source>
        <translation>取消归档任务</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Archive progress</source>
        <translation>归档进度</translation>
    </message>
</context>
<context>
    <name>ArchiveService</name>
    <message>
        <source>Burrow&apos;s archive helper (burrow-archive) is missing, so archives cannot be opened or written. Reinstalling Burrow puts it back.</source>
        <translation>缺少 Burrow 的归档辅助程序（burrow-archive），因此无法打开或写入归档文件。重新安装 Burrow 即可恢复。</translation>
    </message>
    <message>
        <source>Another archive job is still running.</source>
        <translation>另一个归档任务仍在进行中。</translation>
    </message>
    <message>
        <source>The conversation database is not open.</source>
        <translation>对话数据库未打开。</translation>
    </message>
    <message>
        <source>Could not export: %1</source>
        <translation>无法导出：%1</translation>
    </message>
    <message>
        <source>Exporting all conversations…</source>
        <translation>正在导出所有对话…</translation>
    </message>
    <message numerus="yes">
        <source>Exporting %n conversation(s)…</source>
        <translation>
            <numerusform>正在导出 %n 个对话…</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not import: no space for temporary files.</source>
        <translation>无法导入：没有空间存放临时文件。</translation>
    </message>
    <message>
        <source>Importing conversations…</source>
        <translation>正在导入对话…</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>Cannot create the models folder %1.</source>
        <translation>无法创建模型文件夹 %1。</translation>
    </message>
    <message>
        <source>Not enough free disk space to unpack %1: it needs at least %2 MB, %3 MB are free.</source>
        <translation>磁盘空间不足，无法解压 %1：至少需要 %2 MB，当前可用 %3 MB。</translation>
    </message>
    <message>
        <source>Cannot write into the models folder %1.</source>
        <translation>无法写入模型文件夹 %1。</translation>
    </message>
    <message>
        <source>Unpacking %1…</source>
        <translation>正在解压 %1…</translation>
    </message>
    <message>
        <source>Burrow&apos;s archive helper (burrow-archive) could not be started: %1. Reinstalling Burrow puts it back.</source>
        <translation>无法启动 Burrow 的归档辅助程序（burrow-archive）：%1。重新安装 Burrow 即可恢复。</translation>
    </message>
    <message>
        <source>Cancelled. Nothing was changed.</source>
        <translation>已取消，未做任何更改。</translation>
    </message>
    <message>
        <source>The archive helper stopped unexpectedly while reading %1; the archive may be damaged. Nothing was changed.</source>
        <translation>归档辅助程序在读取 %1 时意外停止，该归档文件可能已损坏。未做任何更改。</translation>
    </message>
    <message>
        <source>The archive helper ended without an answer (exit code %1). Nothing was changed.</source>
        <translation>归档辅助程序未返回结果就退出了（退出码 %1）。未做任何更改。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>%1 was not imported: %2</source>
        <translation>%1 未导入：%2</translation>
    </message>
    <message>
        <source>%1 was not unpacked: %2</source>
        <translation>%1 未解压：%2</translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation>已导出到 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Imported %n conversation(s).</source>
        <translation>
            <numerusform>已导入 %n 个对话。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n were already here and were skipped.</source>
        <translation>
            <numerusform>%n 个已存在，已跳过。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 holds no .gguf model file.</source>
        <translation>%1 中没有 .gguf 模型文件。</translation>
    </message>
    <message>
        <source>%1 is already in the models folder.</source>
        <translation>%1 已在模型文件夹中。</translation>
    </message>
    <message>
        <source>Could not move the model into %1.</source>
        <translation>无法将模型移入 %1。</translation>
    </message>
    <message>
        <source>Unpacked %1.</source>
        <translation>已解压 %1。</translation>
    </message>
    <message>
        <source>Could not export: no file was chosen.</source>
        <translation>无法导出：未选择文件。</translation>
    </message>
    <message>
        <source>Could not import: no file was chosen.</source>
        <translation>无法导入：未选择文件。</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Dismiss this message</source>
        <translation>关闭此消息</translation>
    </message>
</context>
<context>
    <name>ChatHeader</name>
    <message>
        <source>Continue with %1</source>
        <translation>继续使用 %1</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>加载 %1</translation>
    </message>
    <message>
        <source>This chat was written with %1.</source>
        <translation>此对话使用 %1 写成。</translation>
    </message>
    <message>
        <source>This chat was written with %1; %2 is loaded.</source>
        <translation>此对话使用 %1 写成；当前加载的是 %2。</translation>
    </message>
    <message>
        <source>Sampling, reply length, context size and system prompt of this chat</source>
        <translation>此对话的采样、回复长度、上下文大小和系统提示词</translation>
    </message>
    <message>
        <source>Settings of this chat</source>
        <translation>此对话的设置</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Show the conversations</source>
        <translation>显示对话列表</translation>
    </message>
    <message>
        <source>Hide the conversations</source>
        <translation>隐藏对话列表</translation>
    </message>
    <message>
        <source>This chat was written with %1, which is not on this computer.</source>
        <translation>这个对话是用 %1 写的，但这台电脑上没有这个模型。</translation>
    </message>
</context>
<context>
    <name>ChatSettings</name>
    <message>
        <source>There is no setting called &quot;%1&quot;.</source>
        <translation>没有名为“%1”的设置。</translation>
    </message>
    <message>
        <source>Enter a number.</source>
        <translation>请输入数字。</translation>
    </message>
    <message>
        <source>Enter a whole number.</source>
        <translation>请输入整数。</translation>
    </message>
    <message>
        <source>That number is far too large.</source>
        <translation>这个数字太大了。</translation>
    </message>
    <message>
        <source>Expected on or off.</source>
        <translation>应为开启或关闭。</translation>
    </message>
    <message>
        <source>Expected text.</source>
        <translation>应为文本。</translation>
    </message>
    <message>
        <source>Temperature cannot be negative (0 always picks the most likely token).</source>
        <translation>温度不能为负数（0 表示总是选择可能性最高的词元）。</translation>
    </message>
    <message>
        <source>Temperature must be at most %1.</source>
        <translation>温度不能超过 %1。</translation>
    </message>
    <message>
        <source>Top-p must be greater than 0 and at most 1 (1 turns it off).</source>
        <translation>Top-p 必须大于 0 且不超过 1（1 表示关闭）。</translation>
    </message>
    <message>
        <source>Top-k cannot be negative (0 turns it off).</source>
        <translation>Top-k 不能为负数（0 表示关闭）。</translation>
    </message>
    <message>
        <source>Top-k must be at most %1.</source>
        <translation>Top-k 不能超过 %1。</translation>
    </message>
    <message>
        <source>Min-p must be between 0 and 1 (0 turns it off).</source>
        <translation>Min-p 必须介于 0 和 1 之间（0 表示关闭）。</translation>
    </message>
    <message>
        <source>The repeat penalty must be greater than 0 (1 turns it off).</source>
        <translation>重复惩罚必须大于 0（1 表示关闭）。</translation>
    </message>
    <message>
        <source>The repeat penalty must be at most %1.</source>
        <translation>重复惩罚不能超过 %1。</translation>
    </message>
    <message>
        <source>The repeat window must be 0 or more tokens (-1: the whole context).</source>
        <translation>重复检测范围必须为 0 个或更多词元（-1：整个上下文）。</translation>
    </message>
    <message>
        <source>The repeat window must be at most %1 tokens.</source>
        <translation>重复检测范围不能超过 %1 个词元。</translation>
    </message>
    <message>
        <source>The seed must be between 0 and %1.</source>
        <translation>种子必须介于 0 和 %1 之间。</translation>
    </message>
    <message>
        <source>The reply length must be at least 1 token (-1: no limit).</source>
        <translation>回复长度至少为 1 个词元（-1：不限制）。</translation>
    </message>
    <message>
        <source>The reply length must be at most %1 tokens.</source>
        <translation>回复长度不能超过 %1 个词元。</translation>
    </message>
    <message>
        <source>The context must hold at least %1 tokens.</source>
        <translation>上下文至少要容纳 %1 个词元。</translation>
    </message>
    <message>
        <source>This model was trained for at most %1 tokens of context.</source>
        <translation>此模型训练时的上下文最多为 %1 个词元。</translation>
    </message>
    <message>
        <source>Only about %1 tokens of context fit in the free memory.</source>
        <translation>可用内存只能容纳约 %1 个词元的上下文。</translation>
    </message>
    <message>
        <source>The context can hold at most %1 tokens.</source>
        <translation>上下文最多只能容纳 %1 个词元。</translation>
    </message>
    <message>
        <source>Expected the name of a chat format.</source>
        <translation>应为对话格式的名称。</translation>
    </message>
    <message>
        <source>There is no chat format called &quot;%1&quot; (known: %2).</source>
        <translation>没有名为“%1”的对话格式（可选：%2）。</translation>
    </message>
    <message>
        <source>Expected one of the listed choices.</source>
        <translation>请选择列出的选项之一。</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>0 always picks the most likely word; higher values give more varied replies.</source>
        <translation>0 表示总是选择可能性最高的词；数值越高，回复越多样。</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Keep the most likely words that together reach this probability (1: off).</source>
        <translation>保留可能性最高、累计概率达到此值的词（1：关闭）。</translation>
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
        <translation>只保留这么多个可能性最高的词（0：关闭）。</translation>
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
        <translation>舍弃可能性低于最可能词的这一比例的词（0：关闭）。</translation>
    </message>
    <message>
        <source>min-p %1</source>
        <translation>min-p %1</translation>
    </message>
    <message>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Above 1 makes repeating recent words less likely (1: off).</source>
        <translation>大于 1 时，最近出现过的词更不容易重复（1：关闭）。</translation>
    </message>
    <message>
        <source>repeat penalty %1</source>
        <translation>重复惩罚 %1</translation>
    </message>
    <message>
        <source>Repeat window</source>
        <translation>重复检测范围</translation>
    </message>
    <message>
        <source>How many recent tokens the penalty looks at (-1: the whole context).</source>
        <translation>重复惩罚检查最近多少个词元（-1：整个上下文）。</translation>
    </message>
    <message>
        <source>Random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>A new random seed for each reply; off: the seed below, to repeat a reply exactly.</source>
        <translation>每次回复使用新的随机种子；关闭时使用下面的种子，可以完全重现一次回复。</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>The same seed and settings write the same reply again.</source>
        <translation>相同的种子和设置会再次写出相同的回复。</translation>
    </message>
    <message>
        <source>Maximum reply length</source>
        <translation>最大回复长度</translation>
    </message>
    <message>
        <source>In tokens (-1: until the model stops).</source>
        <translation>以词元计（-1：直到模型自行停止）。</translation>
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
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Instructions the model sees before the conversation</source>
        <translation>模型在对话开始前看到的指示</translation>
    </message>
    <message>
        <source>Chat format</source>
        <translation>对话格式</translation>
    </message>
    <message>
        <source>chat format %1</source>
        <translation>对话格式 %1</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>The model reasons before it answers (slower, often better); off: it answers at once.</source>
        <translation>模型先推理再回答（较慢，通常更好）；关闭时直接回答。</translation>
    </message>
    <message>
        <source>thinking %1</source>
        <translation>思考 %1</translation>
    </message>
    <message>
        <source>Reasoning effort</source>
        <translation>推理强度</translation>
    </message>
    <message>
        <source>How long the model reasons before it answers.</source>
        <translation>模型回答前推理多久。</translation>
    </message>
    <message>
        <source>reasoning effort %1</source>
        <translation>推理强度 %1</translation>
    </message>
    <message>
        <source>The reasoning effort is one of: %1.</source>
        <translation>推理强度只能是：%1。</translation>
    </message>
    <message>
        <source>Automatic (from the model)</source>
        <translation>自动（由模型决定）</translation>
    </message>
    <message>
        <source>Context memory</source>
        <translation>上下文内存</translation>
    </message>
    <message>
        <source>q8_0 keeps the context in 8 bits: half the memory, replies may differ slightly.</source>
        <translation>q8_0 以 8 位保存上下文：内存减半，回复可能略有不同。</translation>
    </message>
    <message>
        <source>KV cache %1</source>
        <translation>KV 缓存 %1</translation>
    </message>
    <message>
        <source>The context memory is one of: %1.</source>
        <translation>上下文内存只能是：%1。</translation>
    </message>
    <message>
        <source>How many tokens of the conversation the model sees (0: automatic, up to 4,096 as the model and the free memory allow).</source>
        <translation>模型能看到的对话词元数（0：自动，在模型和空闲内存允许的范围内最多 4,096）。</translation>
    </message>
    <message>
        <source>When the context is full</source>
        <translation>上下文满时</translation>
    </message>
    <message>
        <source>when full: %1</source>
        <translation>上下文满时：%1</translation>
    </message>
    <message>
        <source>When the context is full, a reply does one of: %1.</source>
        <translation>上下文满时，回复只能是以下之一：%1。</translation>
    </message>
    <message>
        <source>stop: end the reply there; shift: forget the oldest messages (the system prompt and the first exchange stay) and go on.</source>
        <translation>停止：回复到此结束；平移：忘掉最早的消息（系统提示词和第一轮问答保留）并继续。</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>推测解码</translation>
    </message>
    <message>
        <source>Guessed tokens are checked in one pass, so a reply can come faster; it says the same either way.</source>
        <translation>猜测的词元在一次计算中得到检验，回复可能更快；回复内容不变。</translation>
    </message>
    <message>
        <source>drafting %1</source>
        <translation>推测 %1</translation>
    </message>
    <message>
        <source>Speculative decoding is one of: %1.</source>
        <translation>推测解码只能是：%1。</translation>
    </message>
    <message>
        <source>Draft model</source>
        <translation>草稿模型</translation>
    </message>
    <message>
        <source>A smaller model with the same vocabulary that guesses the next tokens.</source>
        <translation>一个词表相同的较小模型，用来猜测接下来的词元。</translation>
    </message>
    <message>
        <source>The draft model is a file&apos;s full path.</source>
        <translation>草稿模型须为文件的完整路径。</translation>
    </message>
    <message>
        <source>%1 (not found)</source>
        <translation>%1（未找到）</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>The model may call the tools of Settings → Tools; you allow each call.</source>
        <translation>模型可以调用“设置 → 工具”中的工具；每次调用都由你允许。</translation>
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
        <translation>训练上限 %1</translation>
    </message>
    <message>
        <source>about %1 fit in memory</source>
        <translation>内存约可容纳 %1</translation>
    </message>
    <message>
        <source>This model: %1.</source>
        <translation>此模型：%1。</translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <source>Close chat settings</source>
        <translation>关闭对话设置</translation>
    </message>
    <message>
        <source>These settings belong to this chat only. Changes apply to the next reply. A dot marks a value that differs from the defaults for new chats.</source>
        <translation>这些设置只对当前对话有效，更改会在下一条回复时生效。圆点表示该值与新对话的默认值不同。</translation>
    </message>
    <message>
        <source>Reset all to defaults</source>
        <translation>全部重置为默认值</translation>
    </message>
    <message>
        <source>Use for new chats</source>
        <translation>用于新对话</translation>
    </message>
    <message>
        <source>New chats will start with these settings</source>
        <translation>新对话将使用这些设置</translation>
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
        <translation>“自动”使用模型自带的对话模板，没有时使用其词表显示的对话格式，再没有则使用纯文本。如果回复离题或停不下来，请选择一种格式。</translation>
    </message>
    <message>
        <source>For this model, Automatic uses %1.</source>
        <translation>对于这个模型，“自动”使用%1。</translation>
    </message>
    <message>
        <source>Full (16-bit)</source>
        <translation>完整（16 位）</translation>
    </message>
    <message>
        <source>Compact (8-bit, half the memory)</source>
        <translation>紧凑（8 位，内存减半）</translation>
    </message>
    <message>
        <source>New chats start with these settings; the chats you have keep their own. A dot marks a value that differs from Burrow&apos;s built-in settings.</source>
        <translation>新对话以这些设置开始，已有的对话保留各自的设置。圆点表示该值与 Burrow 的内置设置不同。</translation>
    </message>
    <message>
        <source>Shift: forget the oldest messages and go on</source>
        <translation>平移：忘掉最早的消息并继续</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>This model cannot shift its context (it keeps a state of every token instead of keys and values): its replies stop when it is full.</source>
        <translation>这个模型不能平移上下文（它为每个词元保存的是状态，而不是键和值）：上下文满时回复就会停止。</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
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
        <translation>关闭</translation>
    </message>
    <message>
        <source>Choose a draft model (Ctrl+L: type a path)</source>
        <translation>选择草稿模型（Ctrl+L：输入路径）</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Drafted by %1 (its weights, beside the model&apos;s). Choose “Draft model…” again for another file.</source>
        <translation>由 %1 起草（其权重，与模型并存于内存）。再次选择“草稿模型…”可换用其他文件。</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Scroll the conversation</source>
        <translation>滚动对话</translation>
    </message>
    <message>
        <source>Jump to latest</source>
        <translation>跳到最新</translation>
    </message>
    <message>
        <source>Jump to the latest message</source>
        <translation>跳到最新消息</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy this code</source>
        <translation>复制这段代码</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>No model yet: drop a .gguf file on this window or press Ctrl+O to open one.</source>
        <translation>还没有模型：将 .gguf 文件拖到此窗口，或按 Ctrl+O 打开。</translation>
    </message>
    <message>
        <source>Write the beginning of a text; the model continues it. Enter sends, Shift+Enter adds a line.</source>
        <translation>写下一段文字的开头，模型会接着往下写。按 Enter 发送，Shift+Enter 换行。</translation>
    </message>
    <message>
        <source>Message the model. Enter sends, Shift+Enter adds a line.</source>
        <translation>给模型发消息。按 Enter 发送，Shift+Enter 换行。</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
</context>
<context>
    <name>Conversation</name>
    <message>
        <source>Burrow ended before the tool answered.</source>
        <translation>工具回答之前 Burrow 已退出。</translation>
    </message>
    <message>
        <source>The call was not run.</source>
        <translation>这次调用没有运行。</translation>
    </message>
</context>
<context>
    <name>ConversationBundle</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>conversation %1 does not exist</source>
        <translation>对话 %1 不存在</translation>
    </message>
    <message>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <source>This is not a Burrow export: it has no conversations.json.</source>
        <translation>这不是 Burrow 导出的文件：其中没有 conversations.json。</translation>
    </message>
    <message>
        <source>conversations.json is larger than 512 MiB; refusing to read it.</source>
        <translation>conversations.json 超过 512 MiB，拒绝读取。</translation>
    </message>
    <message>
        <source>Cannot read conversations.json: %1</source>
        <translation>无法读取 conversations.json：%1</translation>
    </message>
    <message>
        <source>conversations.json is not valid JSON (%1 at byte %2).</source>
        <translation>conversations.json 不是有效的 JSON（第 %2 字节处：%1）。</translation>
    </message>
    <message>
        <source>conversations.json is not a Burrow conversation export.</source>
        <translation>conversations.json 不是 Burrow 导出的对话。</translation>
    </message>
    <message>
        <source>conversations.json has no valid format version.</source>
        <translation>conversations.json 没有有效的格式版本。</translation>
    </message>
    <message>
        <source>This export was made by a newer Burrow (format version %1; this one reads up to %2).</source>
        <translation>此导出文件由更新版本的 Burrow 生成（格式版本 %1，本版本最高只能读取 %2）。</translation>
    </message>
    <message>
        <source>conversations.json has no list of conversations.</source>
        <translation>conversations.json 中没有对话列表。</translation>
    </message>
    <message>
        <source>Conversation %1</source>
        <translation>第 %1 个对话</translation>
    </message>
    <message>
        <source>%1 is not an object.</source>
        <translation>%1不是对象。</translation>
    </message>
    <message>
        <source>%1 has no list of messages.</source>
        <translation>%1没有消息列表。</translation>
    </message>
    <message>
        <source>%1, message %2: unknown role &quot;%3&quot;.</source>
        <translation>%1，第 %2 条消息：未知角色“%3”。</translation>
    </message>
    <message>
        <source>%1, message %2: content is not text.</source>
        <translation>%1，第 %2 条消息：内容不是文本。</translation>
    </message>
    <message>
        <source>The conversation database refused the import.</source>
        <translation>对话数据库拒绝了此次导入。</translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <source>generating a reply</source>
        <translation>正在生成回复</translation>
    </message>
    <message>
        <source>New name for the chat</source>
        <translation>对话的新名称</translation>
    </message>
    <message>
        <source>Writing a reply</source>
        <translation>正在写回复</translation>
    </message>
    <message>
        <source>Actions for %1</source>
        <translation>“%1”的操作</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Export selected conversations (%1)…</source>
        <translation>导出所选的 %1 个对话…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete selected conversations (%1)</source>
        <translation>删除所选的 %1 个对话</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
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
        <translation>新对话</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>No chat contains “%1”.</source>
        <translation>没有对话包含“%1”。</translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation>还没有对话。</translation>
    </message>
    <message>
        <source>Chat deleted.</source>
        <translation>对话已删除。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation>撤销删除</translation>
    </message>
    <message numerus="yes">
        <source>%n chat(s) deleted.</source>
        <translation>
            <numerusform>已删除 %n 个对话。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConversationStore</name>
    <message>
        <source>Could not %1 in the conversation database</source>
        <translation>对话数据库操作失败（%1）</translation>
    </message>
    <message>
        <source>the file is damaged: %1</source>
        <translation>文件已损坏：%1</translation>
    </message>
    <message>
        <source>it holds tables but no Burrow schema version</source>
        <translation>其中有数据表，但没有 Burrow 的结构版本</translation>
    </message>
    <message>
        <source>it was written by a newer version of Burrow (schema %1, this version reads up to %2)</source>
        <translation>它由更新版本的 Burrow 写入（结构版本 %1，本版本最高只能读取 %2）</translation>
    </message>
    <message>
        <source>the conversation tables are missing</source>
        <translation>缺少对话数据表</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1</source>
        <translation>无法打开你的对话：%1</translation>
    </message>
    <message>
        <source>Could not create the folder for conversations %1</source>
        <translation>无法创建对话文件夹 %1</translation>
    </message>
    <message>
        <source>Your conversations could not be opened because %1. Nothing was changed; start the newer version of Burrow to see them.</source>
        <translation>无法打开你的对话，因为%1。未做任何更改；请启动较新版本的 Burrow 查看这些对话。</translation>
    </message>
    <message>
        <source>Could not open the conversation database</source>
        <translation>无法打开对话数据库</translation>
    </message>
    <message>
        <source>The conversation database %1 cannot be read (%2) and could not be moved aside. Nothing was deleted; close Burrow and move the file away yourself.</source>
        <translation>无法读取对话数据库 %1（%2），也无法将其移到一旁。没有删除任何内容；请关闭 Burrow，然后自行移走该文件。</translation>
    </message>
    <message>
        <source>The conversation database could not be read (%1). It was kept as %2 and a new, empty one was started.</source>
        <translation>无法读取对话数据库（%1）。原文件已保留为 %2，并新建了一个空数据库。</translation>
    </message>
    <message>
        <source>Could not back up the conversation database before upgrading it; nothing was changed</source>
        <translation>升级前无法备份对话数据库；未做任何更改</translation>
    </message>
    <message>
        <source>Could not upgrade the conversation database</source>
        <translation>无法升级对话数据库</translation>
    </message>
    <message>
        <source>Could not upgrade the conversation database to version %1</source>
        <translation>无法将对话数据库升级到版本 %1</translation>
    </message>
    <message>
        <source>The conversation database is not open</source>
        <translation>对话数据库未打开</translation>
    </message>
    <message>
        <source>Could not create a conversation</source>
        <translation>无法创建对话</translation>
    </message>
    <message>
        <source>there is no conversation %1</source>
        <translation>不存在对话 %1</translation>
    </message>
    <message>
        <source>Could not rename the conversation</source>
        <translation>无法重命名对话</translation>
    </message>
    <message>
        <source>Could not store the conversation&apos;s model</source>
        <translation>无法保存对话所用的模型</translation>
    </message>
    <message>
        <source>Could not store the conversation&apos;s settings</source>
        <translation>无法保存对话的设置</translation>
    </message>
    <message>
        <source>Could not delete the conversation</source>
        <translation>无法删除对话</translation>
    </message>
    <message>
        <source>Could not restore the conversation</source>
        <translation>无法恢复对话</translation>
    </message>
    <message>
        <source>Could not delete the conversation for good (only deleted conversations can be)</source>
        <translation>无法永久删除对话（只有已删除的对话才能永久删除）</translation>
    </message>
    <message>
        <source>Could not empty the deleted conversations</source>
        <translation>无法清空已删除的对话</translation>
    </message>
    <message>
        <source>Could not save the reply</source>
        <translation>无法保存回复</translation>
    </message>
    <message>
        <source>message %1 is not a streaming reply</source>
        <translation>消息 %1 不是正在生成的回复</translation>
    </message>
    <message>
        <source>%1 is not a final state</source>
        <translation>%1 不是最终状态</translation>
    </message>
    <message>
        <source>there is no message %1</source>
        <translation>不存在消息 %1</translation>
    </message>
    <message>
        <source>Could not save the edited message</source>
        <translation>无法保存编辑后的消息</translation>
    </message>
    <message>
        <source>message %1 does not exist or is still streaming</source>
        <translation>消息 %1 不存在或仍在生成中</translation>
    </message>
    <message>
        <source>Could not remove the messages</source>
        <translation>无法移除这些消息</translation>
    </message>
    <message>
        <source>message %1 is not in conversation %2</source>
        <translation>消息 %1 不在对话 %2 中</translation>
    </message>
    <message>
        <source>message %1 is not a reply</source>
        <translation>消息 %1 不是回复</translation>
    </message>
    <message>
        <source>Could not save which conversation is shown</source>
        <translation>无法保存当前显示的对话</translation>
    </message>
    <message>
        <source>it cannot be switched to WAL mode</source>
        <translation>无法切换到 WAL 模式</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1 (%2). Burrow left it alone; close the other program (or the other Burrow) and start Burrow again.</source>
        <translation>无法打开你的对话：%1（%2）。Burrow 没有动这个文件；请关闭另一个程序（或另一个 Burrow），然后重新启动 Burrow。</translation>
    </message>
    <message>
        <source>The disk holding your conversations is full (%1). They are shown, but nothing new can be saved until there is room; the file was left as it is.</source>
        <translation>保存你的对话的磁盘已满（%1）。对话照常显示，但在腾出空间之前无法保存任何新内容；文件保持原样。</translation>
    </message>
    <message>
        <source>Burrow cannot write to %1 (%2). Your conversations are shown, but nothing new will be saved until it can; the file was left as it is.</source>
        <translation>Burrow 无法写入 %1（%2）。你的对话照常显示，但在可以写入之前不会保存任何新内容；文件保持原样。</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1 (%2). Nothing was changed, and nothing new will be saved. If this stays after a restart, move the file away: Burrow then starts a new one.</source>
        <translation>无法打开你的对话：%1（%2）。没有做任何更改，也不会保存任何新内容。如果重新启动后仍然如此，请把该文件移走：Burrow 随后会新建一个。</translation>
    </message>
    <message>
        <source>Your conversations could not be opened: %1 (%2). Nothing was changed.</source>
        <translation>无法打开你的对话：%1（%2）。没有做任何更改。</translation>
    </message>
    <message numerus="yes">
        <source>A damaged conversation database from before was kept as %1 (%n file(s) in all); Burrow deleted nothing. The conversations since then are here. Move it away once you no longer need it.</source>
        <translation>
            <numerusform>之前损坏的对话数据库已保留为 %1（共 %n 个文件）；Burrow 没有删除任何内容。此后的对话都在这里。不再需要时请把它移走。</numerusform>
        </translation>
    </message>
    <message>
        <source>Your message could not be saved, so it was not sent</source>
        <translation>无法保存你的消息，因此没有发送</translation>
    </message>
    <message>
        <source>The reply could not be saved (your message was saved; the reply was not)</source>
        <translation>无法保存回复（你的消息已保存；回复没有保存）</translation>
    </message>
    <message>
        <source>Could not save the message</source>
        <translation>无法保存消息</translation>
    </message>
    <message>
        <source>The reply could not be saved as it was written (your message and the reply&apos;s earlier part were saved; the rest was not)</source>
        <translation>回复在生成过程中无法保存（你的消息和回复的前面部分已保存；其余部分没有保存）</translation>
    </message>
    <message>
        <source>The finished reply could not be saved (your message and the reply&apos;s earlier part were saved; its end was not)</source>
        <translation>无法保存完成的回复（你的消息和回复的前面部分已保存；结尾部分没有保存）</translation>
    </message>
    <message>
        <source>the file is damaged (%1)</source>
        <translation>文件已损坏（%1）</translation>
    </message>
    <message>
        <source>another program is using the file (%1)</source>
        <translation>另一个程序正在使用该文件（%1）</translation>
    </message>
    <message>
        <source>the disk is full (%1)</source>
        <translation>磁盘已满（%1）</translation>
    </message>
    <message>
        <source>the file or its folder cannot be written to (%1)</source>
        <translation>无法写入该文件或其所在文件夹（%1）</translation>
    </message>
    <message>
        <source>the file or its folder cannot be opened (%1)</source>
        <translation>无法打开该文件或其所在文件夹（%1）</translation>
    </message>
    <message>
        <source>the conversation database is damaged</source>
        <translation>对话数据库已损坏</translation>
    </message>
    <message>
        <source>another program is using the conversation database</source>
        <translation>另一个程序正在使用对话数据库</translation>
    </message>
    <message>
        <source>the disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <source>the conversation database cannot be written to</source>
        <translation>无法写入对话数据库</translation>
    </message>
    <message>
        <source>the conversation database cannot be opened</source>
        <translation>无法打开对话数据库</translation>
    </message>
    <message>
        <source>the conversation database refused it</source>
        <translation>对话数据库拒绝了写入</translation>
    </message>
    <message>
        <source>%1 of %2 drafts accepted</source>
        <translation>%2 个草稿中接受了 %1 个</translation>
    </message>
</context>
<context>
    <name>DataFolder</name>
    <message>
        <source>Burrow now keeps its data in %1. Some files of the old folder %2 were not moved (%3); nothing was deleted.</source>
        <translation>Burrow 现在把数据保存在 %1。旧文件夹 %2 中有些文件没有移动（%3）；没有删除任何文件。</translation>
    </message>
</context>
<context>
    <name>DownloadDialog</name>
    <message>
        <source>Download a model</source>
        <translation>下载模型</translation>
    </message>
    <message>
        <source>Paste a repository id or a link from the Hugging Face hub. Burrow goes online only to list its files and to download the one you choose.</source>
        <translation>粘贴 Hugging Face Hub 上的仓库 ID 或链接。Burrow 只在列出文件和下载你选择的文件时联网。</translation>
    </message>
    <message>
        <source>organisation/name, e.g. Qwen/Qwen2.5-0.5B-Instruct-GGUF</source>
        <translation>组织/名称，例如 Qwen/Qwen2.5-0.5B-Instruct-GGUF</translation>
    </message>
    <message>
        <source>Repository id or link</source>
        <translation>仓库 ID 或链接</translation>
    </message>
    <message>
        <source>List files</source>
        <translation>列出文件</translation>
    </message>
    <message>
        <source>List the GGUF files of this repository</source>
        <translation>列出此仓库中的 GGUF 文件</translation>
    </message>
    <message>
        <source>Listing the files</source>
        <translation>正在列出文件</translation>
    </message>
    <message>
        <source>GGUF files of %1 (%2)</source>
        <translation>%1 的 GGUF 文件（%2）</translation>
    </message>
    <message>
        <source>Files of the repository</source>
        <translation>仓库中的文件</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>位于 %1</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download the chosen file</source>
        <translation>下载所选文件</translation>
    </message>
    <message>
        <source>Access token (set)…</source>
        <translation>访问令牌（已设置）…</translation>
    </message>
    <message>
        <source>Access token…</source>
        <translation>访问令牌…</translation>
    </message>
    <message>
        <source>The Hugging Face access token, for gated and private repositories</source>
        <translation>Hugging Face 访问令牌，用于受限仓库和私有仓库</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
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
        <translation>下载进度</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause the download of %1</source>
        <translation>暂停下载 %1</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Resume the download of %1</source>
        <translation>继续下载 %1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel the download of %1 and delete what was downloaded</source>
        <translation>取消下载 %1 并删除已下载的部分</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open %1 and chat with it</source>
        <translation>打开 %1 并与它对话</translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <source>Remove %1 from this list (the file stays)</source>
        <translation>从列表中移除 %1（文件保留）</translation>
    </message>
    <message>
        <source>Downloads are saved in %1</source>
        <translation>下载的文件保存在 %1</translation>
    </message>
</context>
<context>
    <name>DownloadList</name>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Checking the part downloaded before…</source>
        <translation>正在检查之前下载的部分…</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下载</translation>
    </message>
    <message>
        <source>Checking the file…</source>
        <translation>正在校验文件…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Downloaded and checked</source>
        <translation>已下载并校验</translation>
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
        <translation>这不是 Hub 上某个仓库中的文件。</translation>
    </message>
    <message>
        <source>%1 cannot be saved under its name: Burrow downloads .gguf files with plain names only.</source>
        <translation>无法以原名保存 %1：Burrow 只下载名称普通的 .gguf 文件。</translation>
    </message>
    <message>
        <source>%1 is one part of a split model; Burrow opens single-file models only.</source>
        <translation>%1 是分卷模型的一部分；Burrow 只能打开单文件模型。</translation>
    </message>
    <message>
        <source>%1 is already in the list of downloads.</source>
        <translation>%1 已在下载列表中。</translation>
    </message>
    <message>
        <source>%1 is already in the models folder (%2).</source>
        <translation>%1 已在模型文件夹中（%2）。</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/秒</translation>
    </message>
    <message>
        <source>less than a minute left</source>
        <translation>剩余不到一分钟</translation>
    </message>
    <message numerus="yes">
        <source>about %n minute(s) left</source>
        <translation>
            <numerusform>大约还剩 %n 分钟</numerusform>
        </translation>
    </message>
    <message>
        <source>about %1 h %2 min left</source>
        <translation>大约还剩 %1 小时 %2 分钟</translation>
    </message>
</context>
<context>
    <name>DownloadWorker</name>
    <message>
        <source>This download names no valid file on the hub.</source>
        <translation>此下载未指向 Hub 上的有效文件。</translation>
    </message>
    <message>
        <source>Cannot create the models folder %1.</source>
        <translation>无法创建模型文件夹 %1。</translation>
    </message>
    <message>
        <source>%1 is a link, not a file Burrow wrote; remove it and try again.</source>
        <translation>%1 是一个链接，不是 Burrow 写入的文件；请删除它后重试。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Not enough free space in %1: %2 needs %3 more, and %4 is free.</source>
        <translation>%1 的可用空间不足：%2 还需要 %3，而只有 %4 可用。</translation>
    </message>
    <message>
        <source>The hub gives %1 a size of %2, but its list of files said %3; try again.</source>
        <translation>Hub 给出的 %1 大小为 %2，但其文件列表中是 %3；请重试。</translation>
    </message>
    <message>
        <source>The server sent another part of %1 than the one asked for.</source>
        <translation>服务器发送的 %1 部分与请求的不同。</translation>
    </message>
    <message>
        <source>The server sends %1 with a size of %2, but the hub said %3; try again.</source>
        <translation>服务器发送的 %1 大小为 %2，但 Hub 给出的是 %3；请重试。</translation>
    </message>
    <message>
        <source>The hub gives no checksum for %1, so Burrow could not check it; nothing was downloaded.</source>
        <translation>Hub 没有提供 %1 的校验和，Burrow 无法校验它；未下载任何内容。</translation>
    </message>
    <message>
        <source>The server sent more than the %1 of %2; the download was stopped.</source>
        <translation>服务器发送的数据超过了 %2 的 %1；下载已停止。</translation>
    </message>
    <message>
        <source>The disk is full: %1 could not be written (%2 free). The part downloaded so far is kept; free some space and resume.</source>
        <translation>磁盘已满：无法写入 %1（可用 %2）。已下载的部分会保留；请释放一些空间后继续。</translation>
    </message>
    <message>
        <source>Could not write %1: %2. The part downloaded so far is kept; resume when the problem is solved.</source>
        <translation>无法写入 %1：%2。已下载的部分会保留；问题解决后请继续。</translation>
    </message>
    <message>
        <source>The hub redirected the download of %1 too many times.</source>
        <translation>Hub 对 %1 的下载重定向次数过多。</translation>
    </message>
    <message>
        <source>The hub redirected the download of %1 to an address Burrow does not follow.</source>
        <translation>Hub 把 %1 的下载重定向到了 Burrow 不会访问的地址。</translation>
    </message>
    <message>
        <source>The download of %1 was redirected to an insecure (http) address; it was stopped.</source>
        <translation>%1 的下载被重定向到不安全的（http）地址，已停止。</translation>
    </message>
    <message>
        <source>The server answered the download of %1 with the unexpected status %2.</source>
        <translation>服务器对 %1 的下载返回了意外的状态 %2。</translation>
    </message>
    <message>
        <source>%1 The part downloaded so far (%2) is kept; Resume continues from there.</source>
        <translation>%1 已下载的部分（%2）会保留；点“继续”将从那里接着下载。</translation>
    </message>
    <message>
        <source>The downloaded %1 does not match the checksum the hub gives for it (%2), so it was not kept. Try again; if this repeats, the file on the hub may be damaged.</source>
        <translation>下载的 %1 与 Hub 给出的校验和（%2）不符，因此未保留。请重试；如果再次出现，Hub 上的文件可能已损坏。</translation>
    </message>
    <message>
        <source>The download of %1 is complete and checked, but it could not be renamed to %2.</source>
        <translation>%1 已下载完成并通过校验，但无法重命名为 %2。</translation>
    </message>
</context>
<context>
    <name>DropOverlay</name>
    <message>
        <source>Drop to open this model</source>
        <translation>松开鼠标即可打开此模型</translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <source>Drop a .gguf model here, or open one</source>
        <translation>将 .gguf 模型拖到这里，或打开一个模型</translation>
    </message>
    <message>
        <source>Everything runs on this computer. Nothing leaves it.</source>
        <translation>一切都在这台电脑上运行，任何数据都不会离开它。</translation>
    </message>
    <message>
        <source>Open model…</source>
        <translation>打开模型…</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>Recent models</source>
        <translation>最近使用的模型</translation>
    </message>
    <message>
        <source>Open recent model %1</source>
        <translation>打开最近使用的模型 %1</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) on this computer…</source>
        <translation>
            <numerusform>这台电脑上有 %n 个模型…</numerusform>
        </translation>
    </message>
    <message>
        <source>Model library…</source>
        <translation>模型库…</translation>
    </message>
    <message>
        <source>Show the models on this computer</source>
        <translation>显示这台电脑上的模型</translation>
    </message>
    <message>
        <source>Download a model…</source>
        <translation>下载模型…</translation>
    </message>
    <message>
        <source>Download a model from the Hugging Face hub</source>
        <translation>从 Hugging Face Hub 下载模型</translation>
    </message>
</context>
<context>
    <name>EngineBackend</name>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>The conversation cannot be written for this model: %1</source>
        <translation>无法为这个模型写出这段对话：%1</translation>
    </message>
    <message>
        <source>it starts when a model is loaded</source>
        <translation>加载模型后启动</translation>
    </message>
    <message>
        <source>port %1 is in use by another program; choose another port in Settings → Local server</source>
        <translation>端口 %1 已被其他程序占用；请在“设置 → 本地服务器”中选择其他端口</translation>
    </message>
    <message>
        <source>it cannot start: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <source>it stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>The context memory cannot be %1 for this model: %2</source>
        <translation>此模型的上下文内存不能为 %1：%2</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <source>Loading was cancelled.</source>
        <translation>已取消加载。</translation>
    </message>
</context>
<context>
    <name>ExportPaths</name>
    <message>
        <source>Burrow conversations %1</source>
        <translation>Burrow 对话 %1</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
</context>
<context>
    <name>FileDialog</name>
    <message>
        <source>File name</source>
        <translation>文件名</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>筛选</translation>
    </message>
</context>
<context>
    <name>HubClient</name>
    <message>
        <source>The hub&apos;s list of files for %1 is too long to read.</source>
        <translation>Hub 上 %1 的文件列表太长，无法读取。</translation>
    </message>
    <message>
        <source>The hub&apos;s answer for %1 could not be read: %2</source>
        <translation>无法读取 Hub 对 %1 的回复：%2</translation>
    </message>
    <message>
        <source>%1 has no GGUF files. Burrow runs GGUF models: look for a repository whose name ends in -GGUF.</source>
        <translation>%1 中没有 GGUF 文件。Burrow 运行 GGUF 模型：请找名称以 -GGUF 结尾的仓库。</translation>
    </message>
    <message>
        <source>not a list of files</source>
        <translation>不是文件列表</translation>
    </message>
    <message>
        <source>a vision projector that goes with a model, not a chat model by itself</source>
        <translation>配合模型使用的视觉投影器，本身不是对话模型</translation>
    </message>
    <message>
        <source>this file name cannot be saved safely</source>
        <translation>此文件名无法安全保存</translation>
    </message>
    <message>
        <source>unknown size</source>
        <translation>大小未知</translation>
    </message>
    <message numerus="yes">
        <source>split into %n file(s); Burrow opens single-file models only</source>
        <translation>
            <numerusform>分为 %n 个文件；Burrow 只能打开单文件模型</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HubProtocol</name>
    <message>
        <source>Paste a repository id (organisation/name) or a link to a model on the Hugging Face hub.</source>
        <translation>请粘贴仓库 ID（组织/名称）或 Hugging Face Hub 上模型的链接。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a repository id: write it as organisation/name, for example Qwen/Qwen2.5-0.5B-Instruct-GGUF.</source>
        <translation>“%1”不是仓库 ID：请写成 组织/名称，例如 Qwen/Qwen2.5-0.5B-Instruct-GGUF。</translation>
    </message>
    <message>
        <source>Only links to the Hugging Face hub (huggingface.co) can be downloaded from.</source>
        <translation>只能从 Hugging Face Hub（huggingface.co）的链接下载。</translation>
    </message>
    <message>
        <source>This is a link to a dataset or a space; Burrow downloads models.</source>
        <translation>这是数据集或 Space 的链接；Burrow 只下载模型。</translation>
    </message>
    <message>
        <source>This link does not name a model repository (organisation/name).</source>
        <translation>此链接没有指向模型仓库（组织/名称）。</translation>
    </message>
    <message>
        <source>This link names no valid revision.</source>
        <translation>此链接中的版本无效。</translation>
    </message>
    <message>
        <source>This link names no valid file.</source>
        <translation>此链接中的文件无效。</translation>
    </message>
    <message>
        <source>32-bit: the original weights, very large</source>
        <translation>32 位：原始权重，非常大</translation>
    </message>
    <message>
        <source>16-bit: full quality, large</source>
        <translation>16 位：完整质量，较大</translation>
    </message>
    <message>
        <source>8-bit: close to the original, large</source>
        <translation>8 位：接近原始质量，较大</translation>
    </message>
    <message>
        <source>6-bit: near the original quality</source>
        <translation>6 位：接近原始质量</translation>
    </message>
    <message>
        <source>5-bit: high quality</source>
        <translation>5 位：高质量</translation>
    </message>
    <message>
        <source>4-bit: a good balance of size and quality</source>
        <translation>4 位：大小与质量的良好平衡</translation>
    </message>
    <message>
        <source>3-bit: smaller, lower quality</source>
        <translation>3 位：更小，质量较低</translation>
    </message>
    <message>
        <source>2-bit or less: the smallest, the lowest quality</source>
        <translation>2 位或更低：最小，质量最低</translation>
    </message>
    <message>
        <source>The hub refused the access token. Check it, or remove it, under Access token.</source>
        <translation>Hub 拒绝了访问令牌。请在“访问令牌”中检查或删除它。</translation>
    </message>
    <message>
        <source>%1 is a gated repository and this token has no access to it yet: accept the license on the model page (%2), then try again.</source>
        <translation>%1 是受限仓库，此令牌还没有访问权限：请在模型页面（%2）上接受许可协议，然后重试。</translation>
    </message>
    <message>
        <source>%1 is a gated repository: it needs an access token. Accept the license on the model page (%2) and add a token under Access token.</source>
        <translation>%1 是受限仓库：需要访问令牌。请在模型页面（%2）上接受许可协议，并在“访问令牌”中添加令牌。</translation>
    </message>
    <message>
        <source>The hub refused access to %1 with this token (%2). Check that the token may read it.</source>
        <translation>Hub 拒绝此令牌访问 %1（%2）。请检查该令牌是否有读取权限。</translation>
    </message>
    <message>
        <source>%1 was not found, or it is private or gated and needs an access token: accept the license on the model page (%2) and add a token under Access token.</source>
        <translation>找不到 %1，或者它是私有或受限仓库，需要访问令牌：请在模型页面（%2）上接受许可协议，并在“访问令牌”中添加令牌。</translation>
    </message>
    <message>
        <source>Not found: %1 has no revision %2.</source>
        <translation>未找到：%1 没有版本 %2。</translation>
    </message>
    <message>
        <source>Not found: %1 has no file %2 (at %3).</source>
        <translation>未找到：%1 中没有文件 %2（版本 %3）。</translation>
    </message>
    <message>
        <source>Not found: there is no repository %1 on the hub.</source>
        <translation>未找到：Hub 上没有仓库 %1。</translation>
    </message>
    <message>
        <source>The server could not continue the download where it stopped (416: range not satisfiable).</source>
        <translation>服务器无法从中断处继续下载（416：请求的范围无法满足）。</translation>
    </message>
    <message>
        <source>The hub is busy (too many requests). Try again in a few minutes.</source>
        <translation>Hub 繁忙（请求过多）。请几分钟后重试。</translation>
    </message>
    <message>
        <source>The hub had a server error (%1). Try again later.</source>
        <translation>Hub 出现服务器错误（%1）。请稍后重试。</translation>
    </message>
    <message>
        <source>The hub answered %1: %2</source>
        <translation>Hub 返回了 %1：%2</translation>
    </message>
    <message>
        <source>The hub answered with the unexpected status %1.</source>
        <translation>Hub 返回了意外的状态 %1。</translation>
    </message>
    <message>
        <source>Could not find %1. Is this computer online?</source>
        <translation>找不到 %1。这台电脑联网了吗？</translation>
    </message>
    <message>
        <source>%1 refused the connection. Is this computer online?</source>
        <translation>%1 拒绝了连接。这台电脑联网了吗？</translation>
    </message>
    <message>
        <source>%1 did not answer in time.</source>
        <translation>%1 没有及时响应。</translation>
    </message>
    <message>
        <source>The connection to %1 was cut.</source>
        <translation>与 %1 的连接已中断。</translation>
    </message>
    <message>
        <source>A secure connection to %1 could not be made: %2</source>
        <translation>无法与 %1 建立安全连接：%2</translation>
    </message>
    <message>
        <source>The network is not available (%1).</source>
        <translation>网络不可用（%1）。</translation>
    </message>
    <message>
        <source>The proxy did not let the connection to %1 through: %2</source>
        <translation>代理没有放行到 %1 的连接：%2</translation>
    </message>
    <message>
        <source>Could not reach %1: %2</source>
        <translation>无法连接到 %1：%2</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统</translation>
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
        <translation>Burrow 暂时还不能运行 %1 架构。</translation>
    </message>
    <message numerus="yes">
        <source>Split into %n files; Burrow opens single-file models only.</source>
        <translation>
            <numerusform>分成了 %n 个文件；Burrow 只能打开单个文件的模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>A part of this split model is missing: %1</source>
        <translation>这个分卷模型缺少一部分：%1</translation>
    </message>
    <message>
        <source>Its settings are not supported: %1</source>
        <translation>不支持它的设置：%1</translation>
    </message>
    <message>
        <source>Its weights can&apos;t be used: %1</source>
        <translation>无法使用它的权重：%1</translation>
    </message>
    <message>
        <source>Its tokenizer is not supported: %1</source>
        <translation>不支持它的分词器：%1</translation>
    </message>
    <message>
        <source>%1 (remote)</source>
        <translation>%1（远程）</translation>
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
        <translation>不再在 %1 中查找</translation>
    </message>
</context>
<context>
    <name>LibraryRow</name>
    <message>
        <source>%L1 tokens</source>
        <translation>%L1 个词元</translation>
    </message>
    <message>
        <source>%1, from %2</source>
        <translation>%1，来自 %2</translation>
    </message>
    <message>
        <source>%1, from %2: %3</source>
        <translation>%1，来自 %2：%3</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最近使用</translation>
    </message>
    <message>
        <source>Needs %1; fits in the memory free now</source>
        <translation>需要 %1；当前可用内存够用</translation>
    </message>
    <message>
        <source>Needs %1, more than the memory free now</source>
        <translation>需要 %1，超过当前可用内存</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open %1</source>
        <translation>打开 %1</translation>
    </message>
    <message>
        <source>Remote: runs on the server, not on this computer</source>
        <translation>远程：在服务器上运行，而不是在这台电脑上</translation>
    </message>
</context>
<context>
    <name>LoadingBar</name>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>加载进度</translation>
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
            <numerusform>服务器：%1 · %n 个客户端</numerusform>
        </translation>
    </message>
    <message>
        <source>Server: %1</source>
        <translation>服务器：%1</translation>
    </message>
    <message>
        <source>Server: starting…</source>
        <translation>服务器：正在启动…</translation>
    </message>
</context>
<context>
    <name>LocalServerDialog</name>
    <message>
        <source>Local server</source>
        <translation>本地服务器</translation>
    </message>
    <message>
        <source>Serves the loaded model over an OpenAI-compatible API (/v1/chat/completions, /v1/completions, /v1/models), for programs such as editor plug-ins or SDKs. Your own chats run first.</source>
        <translation>通过兼容 OpenAI 的 API（/v1/chat/completions、/v1/completions、/v1/models）提供已加载的模型，供编辑器插件或 SDK 等程序使用。你自己的对话优先运行。</translation>
    </message>
    <message>
        <source>Run the local server</source>
        <translation>运行本地服务器</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Allow other devices on the network</source>
        <translation>允许网络上的其他设备</translation>
    </message>
    <message>
        <source>Anyone who can reach this computer can use the model. Set an API key.</source>
        <translation>任何能访问这台电脑的人都可以使用该模型。请设置 API 密钥。</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>none (optional)</source>
        <translation>无（可选）</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>Burrow exports (*.zip)</source>
        <translation>Burrow 导出文件 (*.zip)</translation>
    </message>
    <message>
        <source>Zip archives (*.zip)</source>
        <translation>Zip 压缩包 (*.zip)</translation>
    </message>
    <message>
        <source>Compressed models (*.zip *.tar.gz *.tgz *.tar.xz *.tar.zst *.gguf.gz *.gguf.xz *.gguf.zst)</source>
        <translation>压缩的模型 (*.zip *.tar.gz *.tgz *.tar.xz *.tar.zst *.gguf.gz *.gguf.xz *.gguf.zst)</translation>
    </message>
    <message>
        <source>Settings for new chats</source>
        <translation>新对话的设置</translation>
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
        <translation>正在读取模型文件</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Replace the replies?</source>
        <translation>替换后面的回复？</translation>
    </message>
    <message>
        <source>Sending the edited message replaces the messages after it.</source>
        <translation>发送编辑后的消息会替换它之后的所有消息。</translation>
    </message>
    <message>
        <source>Open a model (Ctrl+L: type a path)</source>
        <translation>打开模型（Ctrl+L：输入路径）</translation>
    </message>
    <message>
        <source>Export conversations (Ctrl+L: type a path)</source>
        <translation>导出对话（Ctrl+L：输入路径）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Import conversations (Ctrl+L: type a path)</source>
        <translation>导入对话（Ctrl+L：输入路径）</translation>
    </message>
</context>
<context>
    <name>McpClient</name>
    <message>
        <source>the tool server was started again</source>
        <translation>工具服务器已重新启动</translation>
    </message>
    <message>
        <source>the tool server was stopped</source>
        <translation>工具服务器已停止</translation>
    </message>
    <message>
        <source>[%1 content, not shown]</source>
        <translation>[%1 内容，未显示]</translation>
    </message>
    <message numerus="yes">
        <source>[the result was cut here: it had %n characters]</source>
        <translation>
            <numerusform>[结果在此截断：原有 %n 个字符]</numerusform>
        </translation>
    </message>
    <message>
        <source>the tool server did not answer %1 within %2 s</source>
        <translation>工具服务器在 %2 秒内没有回答 %1</translation>
    </message>
    <message>
        <source>(it wrote text that is not a JSON-RPC message: %1)</source>
        <translation>（它输出了不是 JSON-RPC 消息的文本：%1）</translation>
    </message>
    <message>
        <source>the tool server refused: %1</source>
        <translation>工具服务器拒绝了：%1</translation>
    </message>
    <message>
        <source>the tool server sent a message over %1 MiB; it was stopped</source>
        <translation>工具服务器发送了超过 %1 MiB 的消息，已将其停止</translation>
    </message>
    <message>
        <source>the tool server &quot;%1&quot; could not be started: %2</source>
        <translation>无法启动工具服务器“%1”：%2</translation>
    </message>
    <message>
        <source>the tool server ended (exit status %1)</source>
        <translation>工具服务器已退出（退出状态 %1）</translation>
    </message>
    <message>
        <source>the tool server sent a message over %1 MiB</source>
        <translation>工具服务器发送了超过 %1 MiB 的消息</translation>
    </message>
    <message>
        <source>the tool server cannot be reached: %1</source>
        <translation>无法连接工具服务器：%1</translation>
    </message>
    <message>
        <source>the tool server answered HTTP %1</source>
        <translation>工具服务器返回了 HTTP %1</translation>
    </message>
    <message>
        <source>the tool server&apos;s answer is not a JSON-RPC message</source>
        <translation>工具服务器的回答不是 JSON-RPC 消息</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>The model remembers from here; older messages no longer fit its context</source>
        <translation>模型从这里开始记得；更早的消息已超出其上下文</translation>
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
        <translation>已中断</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>writing…</source>
        <translation>生成中…</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy this message</source>
        <translation>复制这条消息</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit and resend this message</source>
        <translation>编辑并重新发送这条消息</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Write this reply again</source>
        <translation>重新生成这条回复</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Edited message</source>
        <translation>编辑后的消息</translation>
    </message>
    <message>
        <source>Send again</source>
        <translation>重新发送</translation>
    </message>
    <message>
        <source>Send the edited message</source>
        <translation>发送编辑后的消息</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel editing</source>
        <translation>取消编辑</translation>
    </message>
    <message>
        <source>The context is full: the reply ends here. A larger context, or &quot;Shift&quot; in this chat&apos;s settings, lets the next reply go on.</source>
        <translation>上下文已满：回复到此结束。更大的上下文，或在这个对话的设置中选择“平移”，可以让下一条回复继续。</translation>
    </message>
    <message>
        <source>The context is full: the reply ends here. This model cannot shift its context; a larger context or a new chat gives the next reply room.</source>
        <translation>上下文已满：回复到此结束。这个模型不能平移上下文；更大的上下文或新对话能给下一条回复留出空间。</translation>
    </message>
</context>
<context>
    <name>MessageModel</name>
    <message numerus="yes">
        <source>%n tokens · %1 tokens/s</source>
        <translation>
            <numerusform>%n 个词元 · %1 词元/秒</numerusform>
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
        <translation>%1 个专家，%2 个启用</translation>
    </message>
    <message>
        <source>%1 of %2 active per token</source>
        <translation>每个词元启用 %1（共 %2）</translation>
    </message>
    <message>
        <source>%1 positions on %2 of %3 layers</source>
        <translation>%1 个位置，用于 %3 层中的 %2 层</translation>
    </message>
    <message>
        <source>the last %1 of %2 layers reuse earlier layers&apos; keys and values</source>
        <translation>最后 %1 层（共 %2 层）复用前面层的键和值</translation>
    </message>
    <message>
        <source>%1 per layer, %2, read from the file one row per token</source>
        <translation>每层 %1 个，%2，每个词元从文件中读取一行</translation>
    </message>
    <message>
        <source>its own chat template</source>
        <translation>它自带的对话模板</translation>
    </message>
    <message>
        <source>chosen when it loads: the chat format its vocabulary shows, or plain text</source>
        <translation>加载时决定：其词表显示的对话格式，或纯文本</translation>
    </message>
    <message>
        <source>none: the model continues your text (it has no chat template and no chat tokens)</source>
        <translation>无：模型接着写你的文本（它没有对话模板，也没有对话标记）</translation>
    </message>
    <message>
        <source>%1, from the chat tokens in its vocabulary (it has no chat template)</source>
        <translation>%1，来自其词表中的对话标记（它没有对话模板）</translation>
    </message>
    <message>
        <source>%1 (its own chat template cannot be used)</source>
        <translation>%1（无法使用它自带的对话模板）</translation>
    </message>
    <message>
        <source>%1, chosen from its architecture (it has no chat template)</source>
        <translation>%1，根据其架构选择（它没有对话模板）</translation>
    </message>
    <message>
        <source>prompt lookup (n-gram)</source>
        <translation>提示查找（n-gram）</translation>
    </message>
    <message>
        <source>its MTP layers</source>
        <translation>其 MTP 层</translation>
    </message>
    <message>
        <source>a draft model with the same vocabulary</source>
        <translation>词表相同的草稿模型</translation>
    </message>
    <message>
        <source>none: this file is a drafter for Gemma 4 models (choose it as a chat&apos;s draft model)</source>
        <translation>无：此文件是 Gemma 4 模型的草稿器（请将其选为聊天的草稿模型）</translation>
    </message>
    <message>
        <source>its assistant file (as the draft model)</source>
        <translation>其助手文件（作为草稿模型）</translation>
    </message>
</context>
<context>
    <name>ModelCardDialog</name>
    <message>
        <source>Open %1</source>
        <translation>打开 %1</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <source>Trained context</source>
        <translation>训练上下文</translation>
    </message>
    <message>
        <source>%L1 tokens</source>
        <translation>%L1 个词元</translation>
    </message>
    <message>
        <source>File size</source>
        <translation>文件大小</translation>
    </message>
    <message>
        <source>Chat format</source>
        <translation>对话格式</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Context size in tokens</source>
        <translation>上下文大小（词元数）</translation>
    </message>
    <message>
        <source>Memory needed</source>
        <translation>所需内存</translation>
    </message>
    <message>
        <source>This needs more memory than is free now. Loading may fail or make the computer slow; a smaller context or a smaller quantization needs less.</source>
        <translation>所需内存超过当前可用内存。加载可能失败或使电脑变慢；较小的上下文或更小的量化版本需要的内存更少。</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>Load anyway</source>
        <translation>仍然加载</translation>
    </message>
    <message>
        <source>Load this model</source>
        <translation>加载此模型</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Don&apos;t load this model</source>
        <translation>不加载此模型</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>专家</translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <source>Shared KV layers</source>
        <translation>共享 KV 的层</translation>
    </message>
    <message>
        <source>Per-layer embeddings</source>
        <translation>逐层嵌入</translation>
    </message>
    <message>
        <source>%1 (weights and KV cache), %2 free</source>
        <translation>%1（权重和 KV 缓存），可用 %2</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>推测解码</translation>
    </message>
</context>
<context>
    <name>ModelLibraryView</name>
    <message>
        <source>Model library</source>
        <translation>模型库</translation>
    </message>
    <message>
        <source>Looking for models</source>
        <translation>正在查找模型</translation>
    </message>
    <message>
        <source>Download a model…</source>
        <translation>下载模型…</translation>
    </message>
    <message>
        <source>Download a model from Hugging Face</source>
        <translation>从 Hugging Face 下载模型</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Add a folder to look for models in</source>
        <translation>添加一个用来查找模型的文件夹</translation>
    </message>
    <message>
        <source>Back to the chat</source>
        <translation>返回对话</translation>
    </message>
    <message>
        <source>Close the model library</source>
        <translation>关闭模型库</translation>
    </message>
    <message>
        <source>Search by name, family, quantization or source</source>
        <translation>按名称、系列、量化或来源搜索</translation>
    </message>
    <message>
        <source>Search the models</source>
        <translation>搜索模型</translation>
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
        <translation>名称</translation>
    </message>
    <message>
        <source>Size, smallest first</source>
        <translation>大小，从小到大</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Sort the models</source>
        <translation>对模型排序</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>这台电脑上的模型</translation>
    </message>
    <message>
        <source>Scroll the models</source>
        <translation>滚动模型列表</translation>
    </message>
    <message>
        <source>No model matches “%1”.</source>
        <translation>没有与“%1”匹配的模型。</translation>
    </message>
    <message>
        <source>Looking for models on this computer…</source>
        <translation>正在这台电脑上查找模型…</translation>
    </message>
    <message>
        <source>No models found. Burrow looks in the folders of LM Studio, Ollama, GPT4All, Jan and the Hugging Face cache, and in its own models folder. Add a folder, or drop a .gguf file on the window.</source>
        <translation>没有找到模型。Burrow 会在 LM Studio、Ollama、GPT4All、Jan 和 Hugging Face 缓存的文件夹以及它自己的模型文件夹中查找。可以添加一个文件夹，或把 .gguf 文件拖放到窗口上。</translation>
    </message>
    <message>
        <source>Looked in:</source>
        <translation>查找位置：</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) passed over (not GGUF models, or unreadable)</source>
        <translation>
            <numerusform>跳过了 %n 个文件（不是 GGUF 模型，或无法读取）</numerusform>
        </translation>
    </message>
    <message>
        <source>Add a folder with models</source>
        <translation>添加包含模型的文件夹</translation>
    </message>
</context>
<context>
    <name>ModelLoader</name>
    <message>
        <source>Only model files can be dropped here.</source>
        <translation>只能将模型文件拖放到这里。</translation>
    </message>
    <message>
        <source>Drop one model file at a time.</source>
        <translation>一次只能拖放一个模型文件。</translation>
    </message>
    <message>
        <source>Only files on this computer can be opened.</source>
        <translation>只能打开本机上的文件。</translation>
    </message>
    <message>
        <source>%1 is a folder; drop a .gguf model file.</source>
        <translation>%1 是文件夹，请拖放 .gguf 模型文件。</translation>
    </message>
    <message>
        <source>%1 is not a .gguf model file.</source>
        <translation>%1 不是 .gguf 模型文件。</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>the file could not be read</source>
        <translation>无法读取该文件</translation>
    </message>
    <message>
        <source>Burrow can&apos;t use %1: %2</source>
        <translation>Burrow 无法使用 %1：%2</translation>
    </message>
    <message>
        <source>Burrow can&apos;t use %1: %2 %3 stays loaded.</source>
        <translation>Burrow 无法使用 %1：%2 仍保留已加载的 %3。</translation>
    </message>
    <message>
        <source>this build cannot reach servers</source>
        <translation>此版本无法连接服务器</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>the server &quot;%1&quot; has an empty command</source>
        <translation>服务器“%1”的命令为空</translation>
    </message>
    <message>
        <source>the server &quot;%1&quot; names neither a command nor an http(s) URL</source>
        <translation>服务器“%1”既没有命令也没有 http(s) 地址</translation>
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
        <translation>隐藏推理过程</translation>
    </message>
    <message>
        <source>Show the reasoning</source>
        <translation>显示推理过程</translation>
    </message>
</context>
<context>
    <name>RecentModelItem</name>
    <message>
        <source>Open recent model %1</source>
        <translation>打开最近使用的模型 %1</translation>
    </message>
</context>
<context>
    <name>RemoteBackend</name>
    <message>
        <source>this is not a remote model&apos;s address</source>
        <translation>这不是远程模型的地址</translation>
    </message>
    <message>
        <source>the server %1 is not among your servers (Settings → Servers); Burrow sends nothing to it</source>
        <translation>服务器 %1 不在你的服务器列表中（设置 → 服务器）；Burrow 不会向它发送任何内容</translation>
    </message>
    <message>
        <source>remote</source>
        <translation>远程</translation>
    </message>
    <message>
        <source>Loading was cancelled.</source>
        <translation>加载已取消。</translation>
    </message>
    <message>
        <source>The server %1 was removed from Settings → Servers; nothing was sent.</source>
        <translation>服务器 %1 已从“设置 → 服务器”中移除；未发送任何内容。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>没有加载模型。</translation>
    </message>
</context>
<context>
    <name>RemoteChat</name>
    <message>
        <source>%1 sent a line of more than %2 MiB; the reply was given up, what arrived is kept.</source>
        <translation>%1 发送了超过 %2 MiB 的一行；已放弃这条回复，已收到的内容会保留。</translation>
    </message>
    <message>
        <source>%1 reported an error in the middle of the reply: %2</source>
        <translation>%1 在回复中途报告了错误：%2</translation>
    </message>
    <message>
        <source>%1 sent nothing for %2 s in the middle of the reply; it was given up, what arrived is kept.</source>
        <translation>%1 在回复中途 %2 秒没有发送任何内容；已放弃，已收到的内容会保留。</translation>
    </message>
    <message>
        <source>%1 did not answer within %2 s; the request was given up.</source>
        <translation>%1 在 %2 秒内没有应答；已放弃该请求。</translation>
    </message>
    <message>
        <source>none received</source>
        <translation>未收到</translation>
    </message>
    <message>
        <source>issued to “%1” by “%2”, valid %3 to %4, SHA-256 fingerprint %5</source>
        <translation>颁发给“%1”，颁发者“%2”，有效期 %3 至 %4，SHA-256 指纹 %5</translation>
    </message>
    <message>
        <source>%1 refused the API key (HTTP %2)%3. Check the key in Settings → Servers.</source>
        <translation>%1 拒绝了 API 密钥（HTTP %2）%3。请在“设置 → 服务器”中检查密钥。</translation>
    </message>
    <message>
        <source>%1 has no model “%2” (HTTP 404)%3. It may have been removed, or the address does not end in the server&apos;s /v1; choose another model in the library.</source>
        <translation>%1 没有模型“%2”（HTTP 404）%3。它可能已被移除，或者地址没有以服务器的 /v1 结尾；请在模型库中选择其他模型。</translation>
    </message>
    <message>
        <source>%1 refused the chat settings %2 (HTTP %3)%4. Set them back to their defaults in this chat&apos;s settings to use this server.</source>
        <translation>%1 拒绝了对话设置 %2（HTTP %3）%4。要使用此服务器，请在本对话的设置中将它们恢复为默认值。</translation>
    </message>
    <message>
        <source>%1 answered HTTP %2%3.</source>
        <translation>%1 返回了 HTTP %2%3。</translation>
    </message>
    <message>
        <source>The connection to %1 was refused: its certificate could not be checked (%2). The certificate: %3. Burrow does not accept a certificate it cannot check; give the server one from an authority this computer trusts, or add its authority to the system&apos;s certificates.</source>
        <translation>与 %1 的连接被拒绝：无法验证它的证书（%2）。证书：%3。Burrow 不接受无法验证的证书；请为服务器配置由这台电脑信任的机构签发的证书，或将其签发机构加入系统证书。</translation>
    </message>
    <message>
        <source>%1 is busy (HTTP %2) and asked to wait %3 s; try again later.</source>
        <translation>%1 正忙（HTTP %2），要求等待 %3 秒；请稍后再试。</translation>
    </message>
    <message>
        <source>%1 is busy (HTTP %2); it was asked %3 times. Try again later.</source>
        <translation>%1 正忙（HTTP %2）；已请求 %3 次。请稍后再试。</translation>
    </message>
    <message>
        <source>Could not reach %1 at %2 (%3). Is the server running, and is the address right?</source>
        <translation>无法连接 %1（%2）：%3。服务器是否在运行，地址是否正确？</translation>
    </message>
    <message>
        <source>The connection to %1 ended in the middle of the reply; the text that arrived is kept.</source>
        <translation>与 %1 的连接在回复中途断开；已收到的文字会保留。</translation>
    </message>
    <message>
        <source>The connection to %1 ended before the reply began (%2).</source>
        <translation>与 %1 的连接在回复开始前断开（%2）。</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>没有应答</translation>
    </message>
    <message>
        <source>%1 sent an answer of more than %2 MiB; it was given up.</source>
        <translation>%1 发送的应答超过 %2 MiB；已放弃。</translation>
    </message>
</context>
<context>
    <name>RemoteServers</name>
    <message>
        <source>No API key.</source>
        <translation>没有 API 密钥。</translation>
    </message>
    <message>
        <source>The API key is kept in %1, which only you can read.</source>
        <translation>API 密钥保存在 %1 中，只有你可以读取。</translation>
    </message>
    <message>
        <source>The API key is kept in the system keychain.</source>
        <translation>API 密钥保存在系统钥匙串中。</translation>
    </message>
    <message>
        <source>Type the server&apos;s address with http:// or https://, e.g. http://192.168.1.20:8000/v1.</source>
        <translation>请输入以 http:// 或 https:// 开头的服务器地址，例如 http://192.168.1.20:8000/v1。</translation>
    </message>
    <message>
        <source>“%1” is not a server address.</source>
        <translation>“%1”不是服务器地址。</translation>
    </message>
    <message>
        <source>%1 is in the list already.</source>
        <translation>%1 已在列表中。</translation>
    </message>
    <message>
        <source>Burrow keeps at most %1 servers; remove one first.</source>
        <translation>Burrow 最多保存 %1 个服务器；请先移除一个。</translation>
    </message>
    <message>
        <source>Listing models…</source>
        <translation>正在列出模型…</translation>
    </message>
    <message>
        <source>The server refused the API key (HTTP %1).</source>
        <translation>服务器拒绝了 API 密钥（HTTP %1）。</translation>
    </message>
    <message>
        <source>No answer within %1 s, or a list over 4 MiB.</source>
        <translation>%1 秒内没有应答，或列表超过 4 MiB。</translation>
    </message>
    <message>
        <source>Could not reach the server: %1</source>
        <translation>无法连接服务器：%1</translation>
    </message>
    <message>
        <source>The server answered HTTP %1 to GET /models; is the address its /v1?</source>
        <translation>服务器对 GET /models 返回了 HTTP %1；地址是否指向它的 /v1？</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) (listed before)</source>
        <translation>
            <numerusform>%n 个模型（上次列出）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is another computer reached by plain http: your chats would cross the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.</source>
        <translation>%1 是通过明文 http 访问的另一台电脑：你的对话会未加密地经过网络。如果服务器支持，请使用 https://，或再次按“添加”仍然添加它。</translation>
    </message>
    <message>
        <source>%1 is another computer reached by plain http: your chats and the API key would cross the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.</source>
        <translation>%1 是通过明文 http 访问的另一台电脑：你的对话和 API 密钥会未加密地经过网络。如果服务器支持，请使用 https://，或再次按“添加”仍然添加它。</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s)</source>
        <translation>
            <numerusform>%n 个模型</numerusform>
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
        <translation>提示词：%1 个词元</translation>
    </message>
    <message>
        <source>reply: %1 tokens</source>
        <translation>回复：%1 个词元</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>Interrupted: Burrow stopped while this reply was being written.</source>
        <translation>已中断：生成此回复时 Burrow 停止运行了。</translation>
    </message>
    <message>
        <source>Stopped before the end.</source>
        <translation>在结束前被停止。</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Being written…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <source>random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>seed %1</source>
        <translation>种子 %1</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Settings: %1</source>
        <translation>设置：%1</translation>
    </message>
    <message>
        <source>Written %1</source>
        <translation>写于 %1</translation>
    </message>
    <message>
        <source>Drafted: %1 tokens, %2 accepted (%3 %)</source>
        <translation>草稿：%1 个词元，接受 %2 个（%3 %）</translation>
    </message>
    <message>
        <source>Drafted: none</source>
        <translation>草稿：无</translation>
    </message>
    <message>
        <source> · %1 tokens per pass of the model (1 without drafts)</source>
        <translation> · 模型每次计算写出 %1 个词元（不用草稿时为 1）</translation>
    </message>
</context>
<context>
    <name>ReplyStream</name>
    <message numerus="yes">
        <source>%n tokens at %1 tokens/s</source>
        <translation>
            <numerusform>%n 个词元，%1 词元/秒</numerusform>
        </translation>
    </message>
    <message>
        <source>prompt: %1 new, %2 reused</source>
        <translation>提示词：新增 %1，复用 %2</translation>
    </message>
    <message>
        <source>Stopped: this reply could not be saved (%1), so it would be gone after a restart.</source>
        <translation>已停止：无法保存此回复（%1），重新启动后它就会消失。</translation>
    </message>
</context>
<context>
    <name>ServerRow</name>
    <message>
        <source>%1 at %2: %3</source>
        <translation>%1，位于 %2：%3</translation>
    </message>
    <message>
        <source>(not encrypted)</source>
        <translation>（未加密）</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
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
        <translation>服务器</translation>
    </message>
    <message>
        <source>Chat with models that run on another computer, served over an OpenAI-compatible API (vLLM, llama-server, Ollama, LM Studio, another Burrow). Their models appear in the model library, marked remote.</source>
        <translation>与在另一台电脑上运行、通过兼容 OpenAI 的 API 提供的模型对话（vLLM、llama-server、Ollama、LM Studio、另一个 Burrow）。它们的模型会出现在模型库中，标记为远程。</translation>
    </message>
    <message>
        <source>No servers yet.</source>
        <translation>还没有服务器。</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Server address</source>
        <translation>服务器地址</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>optional, e.g. GPU box</source>
        <translation>可选，例如 GPU 主机</translation>
    </message>
    <message>
        <source>Server name</source>
        <translation>服务器名称</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>none (optional)</source>
        <translation>无（可选）</translation>
    </message>
    <message>
        <source>Add anyway</source>
        <translation>仍然添加</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
</context>
<context>
    <name>SettingRow</name>
    <message>
        <source>Differs from the default</source>
        <translation>与默认值不同</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Reset %1 to the default</source>
        <translation>将“%1”重置为默认值</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>默认：%1</translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Reading the prompt</source>
        <translation>正在读取提示词</translation>
    </message>
    <message>
        <source>Reading the prompt… %1%</source>
        <translation>正在读取提示词… %1%</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
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
        <translation>%1 / %2 个词元</translation>
    </message>
    <message>
        <source>this chat asks for %L1: the next reply makes the context again</source>
        <translation>此对话需要 %L1：下一次回复会重新建立上下文</translation>
    </message>
    <message>
        <source>%1 on %2 (remote)</source>
        <translation>%1（位于 %2，远程）</translation>
    </message>
</context>
<context>
    <name>ToolCard</name>
    <message>
        <source>Tool call %1</source>
        <translation>工具调用 %1</translation>
    </message>
    <message>
        <source>Tool: %1</source>
        <translation>工具：%1</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Run %1 this time</source>
        <translation>这次运行 %1</translation>
    </message>
    <message>
        <source>Always for this chat</source>
        <translation>在此对话中始终允许</translation>
    </message>
    <message>
        <source>Run %1 without asking in this chat</source>
        <translation>在此对话中运行 %1 时不再询问</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Do not run %1</source>
        <translation>不运行 %1</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>正在运行…</translation>
    </message>
    <message>
        <source>The call failed:</source>
        <translation>调用失败：</translation>
    </message>
    <message>
        <source>Denied.</source>
        <translation>已拒绝。</translation>
    </message>
    <message>
        <source>Result (allowed for this chat):</source>
        <translation>结果（此对话中始终允许）：</translation>
    </message>
    <message>
        <source>Result:</source>
        <translation>结果：</translation>
    </message>
    <message>
        <source>The model wants to call this tool.</source>
        <translation>模型想要调用这个工具。</translation>
    </message>
</context>
<context>
    <name>ToolRunner</name>
    <message>
        <source>The user did not allow this call.</source>
        <translation>用户没有允许这次调用。</translation>
    </message>
    <message>
        <source>There are no tool servers.</source>
        <translation>没有工具服务器。</translation>
    </message>
    <message>
        <source>The model&apos;s arguments are not a JSON object.</source>
        <translation>模型给出的参数不是 JSON 对象。</translation>
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
        <translation>重新启动</translation>
    </message>
    <message>
        <source>Start %1 again and list its tools</source>
        <translation>重新启动 %1 并列出其工具</translation>
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
        <translation>正在启动…</translation>
    </message>
    <message numerus="yes">
        <source>%n tool(s)</source>
        <translation>
            <numerusform>%n 个工具</numerusform>
        </translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Type the command that starts the server, e.g. npx -y @modelcontextprotocol/server-everything.</source>
        <translation>请输入启动服务器的命令，例如 npx -y @modelcontextprotocol/server-everything。</translation>
    </message>
    <message>
        <source>Each line of the environment is NAME=value; “%1” is not.</source>
        <translation>环境变量每行应为 NAME=value；“%1”不是。</translation>
    </message>
    <message>
        <source>Type the server&apos;s address with http:// or https://, e.g. http://127.0.0.1:3001/mcp.</source>
        <translation>请输入以 http:// 或 https:// 开头的服务器地址，例如 http://127.0.0.1:3001/mcp。</translation>
    </message>
    <message>
        <source>%1 is another computer reached by plain http: the tools&apos; arguments and results would cross the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.</source>
        <translation>%1 是通过明文 http 访问的另一台计算机：工具的参数和结果将以未加密的形式经过网络。如果服务器支持，请使用 https://，或再次按“添加”以仍然添加它。</translation>
    </message>
    <message>
        <source>Burrow keeps at most %1 tool servers; remove one first.</source>
        <translation>Burrow 最多保留 %1 个工具服务器；请先移除一个。</translation>
    </message>
    <message>
        <source>There is a tool server called “%1” already.</source>
        <translation>已经有名为“%1”的工具服务器。</translation>
    </message>
    <message>
        <source>No tool server offers a tool called “%1” now (Settings → Tools).</source>
        <translation>目前没有工具服务器提供名为“%1”的工具（设置 → 工具）。</translation>
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
        <translation>让模型使用 MCP 服务器提供的工具：由 Burrow 启动的程序（stdio），或位于某个地址的服务器（可流式 HTTP）。每次调用运行之前都由你在对话中允许。</translation>
    </message>
    <message>
        <source>No tool servers yet: the model is offered no tools.</source>
        <translation>还没有工具服务器：不会向模型提供任何工具。</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Server address</source>
        <translation>服务器地址</translation>
    </message>
    <message>
        <source>Command and arguments</source>
        <translation>命令和参数</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>optional, e.g. files</source>
        <translation>可选，例如 files</translation>
    </message>
    <message>
        <source>Tool server name</source>
        <translation>工具服务器名称</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>NAME=value, one per line (optional)</source>
        <translation>NAME=value，每行一个（可选）</translation>
    </message>
    <message>
        <source>Environment variables</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
</context>
</TS>
