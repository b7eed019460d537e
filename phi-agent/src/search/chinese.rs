//! English words of tool requests and the Chinese words that say the same, so that a tool
//! described in Chinese only (common among MCP servers) is found by an English query, and a
//! Chinese query reaches tools described in English. Each entry joins the synonym table as a
//! group of its own ([`super::synonyms`]), at [`TRANSLATION_WEIGHT`].
//!
//! The Chinese words are all two characters: the index reads Chinese as overlapping character
//! pairs, so a two-character word is exactly one of its terms. The words are general vocabulary
//! of software and everyday tasks, not any one server's.

/// A query word's translation's weight, against 1 for the word itself and
/// [`SYNONYM_WEIGHT`](super::index) 0.3 for a synonym: a translation says the same, not
/// something near, yet a tool in the query's own language that says the word should still come
/// first. Not tuned (no held-out set mixes languages): 0.8 lets the project's test of a
/// Chinese-only description among 329 English tools pass, where 0.3 does not.
pub(super) const TRANSLATION_WEIGHT: f32 = 0.8;

/// An English word and the Chinese words for it.
pub(super) const PAIRS: &[(&str, &[&str])] = &[
    // verbs
    ("search", &["搜索", "查找", "检索"]),
    ("find", &["查找", "搜索"]),
    ("query", &["查询"]),
    ("look", &["查询", "查看"]),
    ("check", &["查询", "检查"]),
    ("get", &["获取"]),
    ("fetch", &["获取", "抓取"]),
    ("retrieve", &["获取", "检索"]),
    ("read", &["读取", "阅读"]),
    ("write", &["写入"]),
    ("save", &["保存"]),
    ("create", &["创建", "新建"]),
    ("add", &["添加", "新增"]),
    ("delete", &["删除"]),
    ("remove", &["删除", "移除"]),
    ("update", &["更新"]),
    ("edit", &["编辑", "修改"]),
    ("modify", &["修改"]),
    ("list", &["列表", "列出"]),
    ("send", &["发送"]),
    ("upload", &["上传"]),
    ("download", &["下载"]),
    ("convert", &["转换"]),
    ("translate", &["翻译"]),
    ("generate", &["生成"]),
    ("analyze", &["分析"]),
    ("summarize", &["总结", "摘要"]),
    ("book", &["预订", "预定"]),
    ("plan", &["规划"]),
    ("pay", &["支付", "付款"]),
    ("run", &["运行", "执行"]),
    ("execute", &["执行"]),
    ("calculate", &["计算"]),
    ("recommend", &["推荐"]),
    ("publish", &["发布"]),
    // nouns
    ("file", &["文件"]),
    ("directory", &["目录"]),
    ("folder", &["目录"]),
    ("image", &["图片", "图像"]),
    ("picture", &["图片"]),
    ("photo", &["照片", "图片"]),
    ("video", &["视频"]),
    ("text", &["文本", "文字"]),
    ("document", &["文档"]),
    ("content", &["内容"]),
    ("weather", &["天气"]),
    ("forecast", &["预报"]),
    ("map", &["地图"]),
    ("address", &["地址"]),
    ("coordinate", &["坐标"]),
    ("latitude", &["纬度"]),
    ("longitude", &["经度"]),
    ("location", &["位置"]),
    ("place", &["地点"]),
    ("route", &["路线", "路径"]),
    ("direction", &["路线", "导航"]),
    ("navigate", &["导航"]),
    ("distance", &["距离"]),
    ("walking", &["步行"]),
    ("driving", &["驾车"]),
    ("city", &["城市"]),
    ("train", &["火车", "列车"]),
    ("ticket", &["车票", "门票", "余票"]),
    ("flight", &["航班"]),
    ("hotel", &["酒店"]),
    ("restaurant", &["餐厅"]),
    ("stock", &["股票"]),
    ("price", &["价格"]),
    ("currency", &["货币"]),
    ("exchange", &["汇率", "兑换"]),
    ("news", &["新闻"]),
    ("trending", &["热搜", "热门"]),
    ("email", &["邮件", "邮箱"]),
    ("message", &["消息"]),
    ("user", &["用户"]),
    ("time", &["时间"]),
    ("date", &["日期"]),
    ("calendar", &["日历"]),
    ("event", &["事件", "活动"]),
    ("order", &["订单"]),
    ("data", &["数据"]),
    ("database", &["数据"]),
    ("table", &["表格"]),
    ("chart", &["图表"]),
    ("report", &["报告"]),
    ("web", &["网页", "网络"]),
    ("page", &["网页", "页面"]),
    ("website", &["网站"]),
    ("link", &["链接"]),
    ("url", &["链接", "网址"]),
    ("code", &["代码"]),
    ("repository", &["仓库"]),
    ("note", &["笔记"]),
    ("music", &["音乐"]),
    ("song", &["歌曲"]),
    ("weibo", &["微博"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chinese_word_is_one_character_pair() {
        for (english, words) in PAIRS {
            assert!(english.is_ascii(), "{english}");
            for word in *words {
                assert_eq!(word.chars().count(), 2, "{english}: {word}");
            }
        }
    }
}
