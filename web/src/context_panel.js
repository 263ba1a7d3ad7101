// Placeholder: replaced by the module that implements this part.
import {el} from './dom.js';

export function mountContextPanel(panel, app) {
  panel.append(el('p', {}, 'context_panel is not built yet.'));
}
