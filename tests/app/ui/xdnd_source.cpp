// A real XDND drag source for the UI tests, as a file manager is one:
// `xdnd_source FILE…` shows a small window and prints "ready"; a left press
// on it starts a drag of the files' URLs (text/uri-list), which Qt's xcb
// backend carries over the X server's XDND protocol to whatever window the
// pointer is released over. Prints "dropped copy|move|link|ignore" (what the
// target answered), and stays 10 s more to hand the data over (the target
// reads it after the drop), then exits. The pointer is moved by the test
// (xdotool).
#include <QDrag>
#include <QGuiApplication>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QRasterWindow>
#include <QTimer>
#include <QUrl>
#include <cstdio>

class Source : public QRasterWindow {
public:
    explicit Source(QList<QUrl> urls) : m_urls(std::move(urls)) {}

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter painter(this);
        painter.fillRect(QRect(QPoint(0, 0), size()), QColor(0x33, 0x66, 0x99));
    }
    void exposeEvent(QExposeEvent *event) override
    {
        QRasterWindow::exposeEvent(event);
        if (isExposed() && !m_ready) {
            m_ready = true;
            std::printf("ready\n");
            std::fflush(stdout);
        }
    }
    void mousePressEvent(QMouseEvent *event) override
    {
        if (event->button() != Qt::LeftButton || m_dragging)
            return;
        m_dragging = true;
        auto *mime = new QMimeData;
        mime->setUrls(m_urls);
        auto *drag = new QDrag(this);
        drag->setMimeData(mime);
        const Qt::DropAction action = drag->exec(Qt::CopyAction | Qt::MoveAction | Qt::LinkAction, Qt::CopyAction);
        const char *name = action == Qt::CopyAction ? "copy"
                         : action == Qt::MoveAction ? "move"
                         : action == Qt::LinkAction ? "link" : "ignore";
        std::printf("dropped %s\n", name);
        std::fflush(stdout);
        // The target reads the data after the drop (a selection request to
        // this process), as late as its event loop gets to it: stay a while.
        QTimer::singleShot(10000, qApp, &QGuiApplication::quit);
    }

private:
    QList<QUrl> m_urls;
    bool m_ready = false;
    bool m_dragging = false;
};

int main(int argc, char *argv[])
{
    QGuiApplication app(argc, argv);
    QList<QUrl> urls;
    for (const QString &path : app.arguments().mid(1))
        urls << QUrl::fromLocalFile(path);
    if (urls.isEmpty()) {
        std::fprintf(stderr, "usage: xdnd_source FILE...\n");
        return 2;
    }
    Source window(urls);
    // It never takes the keyboard focus (the window a test types into keeps it).
    window.setFlags(Qt::Window | Qt::FramelessWindowHint | Qt::WindowStaysOnTopHint | Qt::WindowDoesNotAcceptFocus);
    window.setTitle(QStringLiteral("xdnd_source"));
    window.setGeometry(4, 4, 48, 48);
    window.show();
    return app.exec();
}
